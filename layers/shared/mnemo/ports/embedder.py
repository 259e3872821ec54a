"""The embedder port: text in, L2-normalised float32 vectors out."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: list[str]) -> Vectors:
        """One row per text, each of unit length."""
        ...


def unit_rows(matrix: npt.ArrayLike) -> Vectors:
    """Each row scaled to length 1 (rows of zeros stay zero), as float32."""
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    out: Vectors = (rows / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return out
