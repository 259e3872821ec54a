"""Embedder provider `ollama`: Ollama's native `/api/embed` endpoint (not its OpenAI-compatible one).

The HTTP client (timeouts, retries of 429/5xx and dropped connections honouring Retry-After, the deadline, the
error codes) is the `openai` providers' own, see mnemo.adapters.openai_http.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from mnemo.adapters.openai_http import OpenAIHttp, Pace
from mnemo.adapters.provider_config import DEFAULT_OLLAMA_BASE_URL, BaseUrl, HttpProviderConfig, ModelName
from mnemo.errors import ProviderError
from mnemo.ports.embedder import Vectors, unit_rows


class OllamaEmbedderConfig(HttpProviderConfig):
    """The API key, when given, is sent as `Authorization: Bearer …`, for a deployment behind a proxy."""

    model: ModelName = "nomic-embed-text"
    base_url: BaseUrl = DEFAULT_OLLAMA_BASE_URL
    timeout: float = 120.0  # seconds, per attempt (a local model may be loaded on the first call)
    embedding_dims: int = Field(default=768, gt=0)  # the model's width: every answer is checked against it
    batch_size: int = Field(default=256, gt=0)


class OllamaEmbedder:
    def __init__(self, config: OllamaEmbedderConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"ollama/{config.model}"
        self._http = config.client(OpenAIHttp, pace)

    @property
    def dimension(self) -> int:
        return self.config.embedding_dims

    def embed(self, texts: list[str]) -> Vectors:
        rows: list[object] = []
        for start in range(0, len(texts), self.config.batch_size):
            chunk = texts[start : start + self.config.batch_size]
            payload = self._http.post("api/embed", {"model": self.config.model, "input": chunk})
            embeddings = payload.get("embeddings")
            if not isinstance(embeddings, list):
                raise ProviderError("Provider returned no embeddings.", "provider_bad_response")
            if len(embeddings) != len(chunk):
                raise ProviderError("Provider returned the wrong number of embeddings.", "provider_bad_response")
            rows.extend(embeddings)
        wanted = self.config.embedding_dims
        if not rows:
            return np.zeros((0, wanted), dtype=np.float32)
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise ProviderError("Provider returned malformed embeddings.", "provider_bad_response") from exc
        if matrix.ndim != 2 or matrix.shape[1] != wanted:
            got = matrix.shape[1] if matrix.ndim == 2 else "uneven"
            raise ProviderError(
                f"Provider returned embeddings of the wrong size ({got}, expected {wanted}): "
                "set embedding_dims to the model's width.",
                "provider_bad_response",
            )
        if not np.isfinite(matrix).all():
            raise ProviderError("Provider returned embeddings that are not finite.", "provider_bad_response")
        return unit_rows(matrix)
