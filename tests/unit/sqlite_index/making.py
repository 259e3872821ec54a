"""What the index's unit tests build their parts from: records of a few users, unit vectors, filled partitions."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import int8_vectors
from mnemo.adapters.sqlite.memory_index.approximate import ApproximateSearch
from mnemo.adapters.sqlite.memory_index.exact_vectors import ExactVectors
from mnemo.adapters.sqlite.memory_index.facets import FacetIndex
from mnemo.adapters.sqlite.memory_index.partitions import Partitions
from mnemo.adapters.sqlite.memory_index.rows import IndexRows
from mnemo.adapters.sqlite.memory_index.tuning import IndexTuning
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.language.en import english

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
WIDTH = 16


def unit_rows(count: int, seed: int, width: int = WIDTH) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((count, width)).astype(np.float32)
    normalised: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return normalised


def records_of(texts: Sequence[str], users: Sequence[str | None] | None = None) -> list[MemoryRecord]:
    """One record per text, of the user at the same place (all of "alice" when no users are given)."""
    owners = users if users is not None else ["alice"] * len(texts)
    return [MemoryRecord.create(t, Scope(user_id=u), at=T0) for t, u in zip(texts, owners, strict=True)]


def filled(records: list[MemoryRecord], vectors: np.ndarray, first_key: int = 1) -> tuple[Partitions, list[int]]:
    """Partitions holding these records' rows under consecutive keys (no document source: documents kept)."""
    partitions = Partitions(vectors.shape[1], None, english())
    keys = list(range(first_key, first_key + len(records)))
    partitions.keys.update((r.id, k) for r, k in zip(records, keys, strict=True))
    codes, scales = int8_vectors.quantize(vectors)
    partitions.add(records, codes, scales, keys)
    return partitions, keys


def database(tmp_path: Path, name: str = "index.sqlite3") -> Iterator[Database]:
    db = Database(tmp_path / name)
    try:
        yield db
    finally:
        db.close()


def empty_rows(tuning: IndexTuning | None = None, lock: threading.RLock | None = None) -> IndexRows:
    """The in-memory side of an empty index (no document or vector source)."""
    return IndexRows(
        Partitions(WIDTH, None, english()),
        FacetIndex(),
        ExactVectors(None, lock or threading.RLock()),
        ApproximateSearch(tuning or IndexTuning()),
    )


def added(rows: IndexRows, records: list[MemoryRecord], vectors: np.ndarray, keys: list[int]) -> None:
    """These records' rows, under these keys, as a writer adds them."""
    rows.partitions.keys.update((r.id, k) for r, k in zip(records, keys, strict=True))
    rows.add(records, vectors, keys)
