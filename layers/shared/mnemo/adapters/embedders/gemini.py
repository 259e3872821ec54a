"""Embedder provider `gemini`: Google's Gemini API (`models/{model}:batchEmbedContents`), without an SDK."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from mnemo.adapters.gemini_http import DEFAULT_BASE_URL, GeminiHttp
from mnemo.adapters.openai_http import (
    DEFAULT_MAX_RETRIES,
    ApiKey,
    BaseUrl,
    MaxRetries,
    ModelName,
    Pace,
    RetryPolicy,
    TotalTimeout,
)
from mnemo.errors import ProviderError
from mnemo.ports.embedder import Vectors, unit_rows

MAX_BATCH = 100  # the most requests one batchEmbedContents call takes
KNOWN_DIMENSIONS = {
    "text-embedding-004": 768,
    "embedding-001": 768,
    "gemini-embedding-001": 3072,
}


class GeminiEmbedderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: ModelName = "text-embedding-004"
    api_key: ApiKey | None = None  # sent as `x-goog-api-key`
    base_url: BaseUrl = DEFAULT_BASE_URL
    # Asks the endpoint for this many dimensions (`outputDimensionality`) when set; else the model's own.
    embedding_dims: Annotated[int, Field(ge=1, le=65_536)] | None = None
    batch_size: Annotated[int, Field(ge=1, le=MAX_BATCH)] = MAX_BATCH
    timeout: float = 60.0  # seconds, per attempt
    max_retries: MaxRetries = DEFAULT_MAX_RETRIES  # of a 429, 500, 502, 503, 504, dropped connection or timeout
    total_timeout: TotalTimeout = None  # seconds for the whole call (one batch), retries included; None: 2 × timeout


class GeminiEmbedder:
    def __init__(self, config: GeminiEmbedderConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"gemini/{config.model}"
        retry = RetryPolicy.for_timeout(config.timeout, config.max_retries, config.total_timeout)
        self._http = GeminiHttp(config.base_url, config.api_key, config.timeout, retry, pace)
        self._dimension = config.embedding_dims or KNOWN_DIMENSIONS.get(config.model)

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: list[str]) -> Vectors:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.config.batch_size):
            chunk = texts[start : start + self.config.batch_size]
            rows.extend(self._embed_batch(chunk))
        if len(rows) != len(texts):
            raise ProviderError("Provider returned the wrong number of embeddings.", "provider_bad_response")
        if not rows:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise ProviderError("Provider returned malformed embeddings.", "provider_bad_response") from exc
        wanted = self.config.embedding_dims
        if matrix.ndim != 2 or (wanted and matrix.shape[1] != wanted):
            raise ProviderError(
                f"Provider returned embeddings of the wrong size (expected {wanted or 'equal-length rows'}).",
                "provider_bad_response",
            )
        self._dimension = matrix.shape[1]
        return unit_rows(matrix)

    def _embed_batch(self, chunk: list[str]) -> list[list[float]]:
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
