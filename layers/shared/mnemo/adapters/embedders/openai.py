"""Embedder provider `openai`: any OpenAI-compatible embeddings endpoint."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from mnemo.adapters.openai_http import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_RETRIES,
    ApiKey,
    BaseUrl,
    MaxRetries,
    ModelName,
    OpenAIHttp,
    Pace,
    RetryPolicy,
    TotalTimeout,
)
from mnemo.errors import ProviderError
from mnemo.ports.embedder import Vectors, unit_rows

KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbedderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: ModelName = "text-embedding-3-small"
    api_key: ApiKey | None = None
    base_url: BaseUrl = DEFAULT_BASE_URL
    embedding_dims: int | None = None  # asks the endpoint for this many dimensions when set
    batch_size: int = 256
    timeout: float = 60.0  # seconds, per attempt
    max_retries: MaxRetries = DEFAULT_MAX_RETRIES  # of a 429, 500, 502, 503, 504, dropped connection or timeout
    total_timeout: TotalTimeout = None  # seconds for the whole call (one batch), retries included; None: 2 × timeout


class OpenAIEmbeddings:
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
        self._http = http
        self._batch_size = batch_size
        self._embedding_dims = embedding_dims
        self._extra_body = dict(extra_body or {})
        self._dimension = embedding_dims or known_dimension

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: list[str]) -> Vectors:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            chunk = texts[start : start + self._batch_size]
            body: dict[str, object] = {**self._extra_body, "input": chunk}
            if self._embedding_dims:
                body["dimensions"] = self._embedding_dims
            payload = self._http.post("embeddings", body)
            try:
                data = sorted(payload["data"], key=lambda item: item["index"])
                rows.extend(item["embedding"] for item in data)
            except (KeyError, TypeError) as exc:
                raise ProviderError("Provider returned no embeddings.", "provider_bad_response") from exc
        if len(rows) != len(texts):
            raise ProviderError("Provider returned the wrong number of embeddings.", "provider_bad_response")
        if not rows:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise ProviderError("Provider returned malformed embeddings.", "provider_bad_response") from exc
        wanted = self._embedding_dims
        if matrix.ndim != 2 or (wanted and matrix.shape[1] != wanted):
            raise ProviderError(
                f"Provider returned embeddings of the wrong size (expected {wanted or 'equal-length rows'}).",
                "provider_bad_response",
            )
        self._dimension = matrix.shape[1]
        return unit_rows(matrix)


class OpenAIEmbedder(OpenAIEmbeddings):
    def __init__(self, config: OpenAIEmbedderConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"openai/{config.model}"
        retry = RetryPolicy.for_timeout(config.timeout, config.max_retries, config.total_timeout)
        super().__init__(
            OpenAIHttp(config.base_url, config.api_key, config.timeout, retry, pace),
            batch_size=config.batch_size,
            embedding_dims=config.embedding_dims,
            extra_body={"model": config.model},
            known_dimension=KNOWN_DIMENSIONS.get(config.model),
        )
