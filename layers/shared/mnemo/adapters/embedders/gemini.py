"""Embedder provider `gemini`: Google's Gemini API (`models/{model}:batchEmbedContents`), without an SDK."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mnemo.adapters.embedders.batched import BatchedEmbedder
from mnemo.adapters.gemini_http import DEFAULT_BASE_URL, GeminiHttp
from mnemo.adapters.openai_http import Pace
from mnemo.adapters.provider_config import BaseUrl, HttpProviderConfig, ModelName
from mnemo.errors import ProviderError

MAX_BATCH = 100  # the most requests one batchEmbedContents call takes
KNOWN_DIMENSIONS = {
    "text-embedding-004": 768,
    "embedding-001": 768,
    "gemini-embedding-001": 3072,
}


class GeminiEmbedderConfig(HttpProviderConfig):
    """The API key is sent as `x-goog-api-key`."""

    model: ModelName = "text-embedding-004"
    base_url: BaseUrl = DEFAULT_BASE_URL
    # Asks the endpoint for this many dimensions (`outputDimensionality`) when set; else the model's own.
    embedding_dims: Annotated[int, Field(ge=1, le=65_536)] | None = None
    batch_size: Annotated[int, Field(ge=1, le=MAX_BATCH)] = MAX_BATCH


class GeminiEmbedder(BatchedEmbedder):
    def __init__(self, config: GeminiEmbedderConfig, *, pace: Pace | None = None) -> None:
        super().__init__(
            batch_size=config.batch_size,
            embedding_dims=config.embedding_dims,
            known_dimension=KNOWN_DIMENSIONS.get(config.model),
        )
        self.config = config
        self.name = f"gemini/{config.model}"
        self._http = config.client(GeminiHttp, pace)

    def _embed_batch(self, chunk: list[str]) -> list[Any]:
        model = self.config.model
        requests: list[dict[str, object]] = []
        for text in chunk:
            request: dict[str, object] = {"model": f"models/{model}", "content": {"parts": [{"text": text}]}}
            if self.config.embedding_dims:
                request["outputDimensionality"] = self.config.embedding_dims
            requests.append(request)
        payload = self._http.model_call(model, "batchEmbedContents", {"requests": requests})
        try:
            rows = [item["values"] for item in payload["embeddings"]]
        except (KeyError, TypeError) as exc:
            raise ProviderError("Provider returned no embeddings.", "provider_bad_response") from exc
        if len(rows) != len(chunk):
            raise ProviderError("Provider returned the wrong number of embeddings.", "provider_bad_response")
        return rows
