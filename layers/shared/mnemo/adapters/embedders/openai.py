"""Embedder provider `openai`: any OpenAI-compatible embeddings endpoint."""

from __future__ import annotations

from typing import Any

from mnemo.adapters.embedders.batched import BatchedEmbedder
from mnemo.adapters.openai_http import DEFAULT_BASE_URL, OpenAIHttp, Pace
from mnemo.adapters.provider_config import BaseUrl, HttpProviderConfig, ModelName
from mnemo.errors import ProviderError

KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbedderConfig(HttpProviderConfig):
    model: ModelName = "text-embedding-3-small"
    base_url: BaseUrl = DEFAULT_BASE_URL
    embedding_dims: int | None = None  # asks the endpoint for this many dimensions when set
    batch_size: int = 256


class OpenAIEmbeddings(BatchedEmbedder):
    """Embeds through an OpenAI embeddings endpoint: `batch_size` texts a call, `{input, dimensions?}` plus
    `extra_body` (e.g. `model`) in each request, rows put back in order and made unit length."""

    def __init__(
        self,
        http: OpenAIHttp,
        *,
        batch_size: int,
        embedding_dims: int | None,
        extra_body: dict[str, object] | None = None,
        known_dimension: int | None = None,
    ) -> None:
        super().__init__(batch_size=batch_size, embedding_dims=embedding_dims, known_dimension=known_dimension)
        self._http = http
        self._extra_body = dict(extra_body or {})

    def _embed_batch(self, chunk: list[str]) -> list[Any]:
        body: dict[str, object] = {**self._extra_body, "input": chunk}
        if self._embedding_dims:
            body["dimensions"] = self._embedding_dims
        payload = self._http.post("embeddings", body)
        try:
            data = sorted(payload["data"], key=lambda item: item["index"])
            return [item["embedding"] for item in data]
        except (KeyError, TypeError) as exc:
            raise ProviderError("Provider returned no embeddings.", "provider_bad_response") from exc


class OpenAIEmbedder(OpenAIEmbeddings):
    def __init__(self, config: OpenAIEmbedderConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"openai/{config.model}"
        super().__init__(
            config.client(OpenAIHttp, pace),
            batch_size=config.batch_size,
            embedding_dims=config.embedding_dims,
            extra_body={"model": config.model},
            known_dimension=KNOWN_DIMENSIONS.get(config.model),
        )
