"""What the HTTP embedders that send a batch of texts per call share (`openai`, `azure_openai`, `gemini`): the texts
cut into batches of `batch_size`, each embedded by the API's own request (`_embed_batch`), the rows of all checked
(as many as the texts; `embedding_dims` wide when set, else all of one width) and made unit length. `dimension` is
`embedding_dims`, else the model's known width, else found by embedding one text.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from mnemo.errors import ProviderError
from mnemo.ports.embedder import Vectors, unit_rows


class BatchedEmbedder(ABC):
    def __init__(self, *, batch_size: int, embedding_dims: int | None, known_dimension: int | None = None) -> None:
        self._batch_size = batch_size
        self._embedding_dims = embedding_dims
        self._dimension = embedding_dims or known_dimension

    @abstractmethod
    def _embed_batch(self, chunk: list[str]) -> list[Any]:
        """The rows the API answers for one batch, in the order of its texts (a ProviderError if it answers none)."""

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: list[str]) -> Vectors:
        rows: list[Any] = []
        for start in range(0, len(texts), self._batch_size):
            rows.extend(self._embed_batch(texts[start : start + self._batch_size]))
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
