"""Loaded by every Python process started with this folder on PYTHONPATH (bench.http_split puts it there for the
server it starts, and its worker processes inherit it): the default embedder keeps its tokenizer, its ONNX session
and everything around them, but the model's run itself is replaced by `weightless_forward`, a lookup that costs
microseconds. The server then spends on each request everything but the model, which is what the split measures.
Never on the path of anything but that benchmark."""

from __future__ import annotations

import numpy as np

_TABLE_ROWS = 4096
_tables: dict[int, np.ndarray] = {}  # one fixed random table per vector dimension


def weightless_forward(self: object, batch_ids: list[list[int]]) -> np.ndarray:
    """A unit vector per text from its token ids (a sum of fixed random rows): deterministic, not a meaning."""
    dimension: int = self.dimension  # type: ignore[attr-defined]
    table = _tables.get(dimension)
    if table is None:
        table = np.random.default_rng(7).standard_normal((_TABLE_ROWS, dimension)).astype(np.float32)
        _tables[dimension] = table
    out = np.stack([table[np.asarray(ids) % _TABLE_ROWS].sum(axis=0) for ids in batch_ids])
    unit: np.ndarray = out / np.linalg.norm(out, axis=1, keepdims=True)
    return unit


def _install() -> None:
    from mnemo.adapters.embedders import local_minilm

    local_minilm.LocalMiniLMEmbedder._forward_onnx = weightless_forward  # type: ignore[method-assign]


_install()
