"""Unit vectors stored as int8: a quarter of float32's memory, for the in-process index's exact scans.

Each row keeps its own scale (its largest absolute component / 127), so that a row's codes use the whole int8 range.
The cosine of a float32 query with a row is (codes · query) × scale. Rounding moves each component by at most
scale / 2, so the score moves by at most scale / 2 × ‖query‖₁; for all-MiniLM-L6-v2's unit vectors
(largest components about 0.2) that is about 0.01 at worst and 5e-4 typically: the order of candidates is kept,
save for near ties.
"""

from __future__ import annotations

import numpy as np

from mnemo.ports.embedder import Vectors

LEVELS = 127.0


def quantize(vectors: Vectors) -> tuple[np.ndarray, np.ndarray]:
    """The int8 codes of float rows, and each row's scale."""
    rows = np.asarray(vectors, dtype=np.float32)
    if rows.ndim == 1:
        rows = rows.reshape(1, -1)
    peak = np.abs(rows).max(axis=1) if rows.shape[1] else np.zeros(len(rows), dtype=np.float32)
    scales = np.where(peak > 0, peak / LEVELS, 1.0).astype(np.float32)
    codes = np.clip(np.rint(rows / scales[:, None]), -LEVELS, LEVELS).astype(np.int8)
    return codes, scales


def dequantize(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """The float32 rows the codes stand for."""
    out: np.ndarray = codes.astype(np.float32) * scales[:, None]
    return out


def scores(codes: np.ndarray, scales: np.ndarray, query: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The cosine of the query with every row (rows and query unit length), in float32."""
    result: np.ndarray = np.matmul(codes.astype(np.float32), query, out=out)
    result *= scales
    return result
