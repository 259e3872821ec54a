"""How far the index's int8 scores may stray from the float32 cosine: what the quantization tests hold it to.

Rounding moves each component of a row by at most its scale / 2, so a score moves by at most scale / 2 × ‖query‖₁.
"""

from __future__ import annotations

import numpy as np


def error_bound(scales: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The most each row's score can differ from the float32 cosine."""
    bound: np.ndarray = scales / 2 * float(np.abs(query).sum())
    return bound
