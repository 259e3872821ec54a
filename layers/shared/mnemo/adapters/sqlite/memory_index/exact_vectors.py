"""The float32 vectors a search rescores its candidates with, so that a hit's semantic score is the exact cosine.

Candidates are chosen on int8 scores; their float32 vectors then give the score a hit carries. Without a vector
source every row's vector is kept here; with one (the record store's embeddings), a cache of at most EXACT_CACHED
vectors sits in front of it: a search rescores a few dozen candidates, and reading them from SQLite each time costs
more than the rest of its vector work (bench/memory_index.md). Every write of a row replaces or drops its entry and
is counted, so that a vector read from the source while a write ran is not cached.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np

from mnemo.adapters.sqlite.memory_index.row_documents import VectorSource
from mnemo.ports.embedder import Vectors

EXACT_CACHED = 32_768  # float32 vectors kept in memory in front of the vector source (1.5 KB each at 384 wide)


class ExactVectors:
    """The memories' float32 vectors, all of them or a cache in front of the vector source; guarded by the index's
    lock (taken here for the reads a search makes outside it)."""

    def __init__(self, source: VectorSource | None, lock: threading.RLock) -> None:
        self._source = source
        self._lock = lock
        self._vectors: dict[str, np.ndarray] = {}
        self._writes = 0

    def put(self, memory_ids: Sequence[str], vectors: Vectors) -> None:
        """These memories' vectors, written (kept while the cache has room; else dropped, read again when needed)."""
        self._writes += 1
        exact = np.asarray(vectors, dtype=np.float32)
        if self._source is None or len(self._vectors) + len(memory_ids) <= EXACT_CACHED:
            self._vectors.update((memory_id, exact[at]) for at, memory_id in enumerate(memory_ids))
        else:
            for memory_id in memory_ids:
                self._vectors.pop(memory_id, None)

    def drop(self, memory_ids: Sequence[str]) -> None:
        self._writes += 1
        for memory_id in memory_ids:
            self._vectors.pop(memory_id, None)

    def clear(self) -> None:
        self._vectors.clear()
        self._writes += 1

    def cosines(self, memory_ids: Sequence[str], query: np.ndarray) -> dict[str, float]:
        """The float32 cosine of the query with each of these memories (those the source still has)."""
        if not memory_ids:
            return {}
        unique = list(dict.fromkeys(memory_ids))
        with self._lock:
            found = {i: v for i in unique if (v := self._vectors.get(i)) is not None}
            writes = self._writes
        missing = [i for i in unique if i not in found]
        if missing and self._source is not None:
            found.update(self._read(missing, writes))
        if not found:
            return {}
        names = list(found)
        # One array of all the rows at once (each row flattened by the reshape), not np.stack of rows made one at a
        # time (bench/memory_index.md).
        matrix = np.array([found[i] for i in names], dtype=np.float32).reshape(len(names), -1)
        return dict(zip(names, (matrix @ query).tolist(), strict=True))

    def _read(self, missing: list[str], writes: int) -> Mapping[str, np.ndarray]:
        """These vectors read from the source; cached when no write came since `writes` and the cache has room."""
        assert self._source is not None
        read = self._source(missing)
        with self._lock:
            if writes == self._writes and len(self._vectors) + len(read) <= EXACT_CACHED:
                self._vectors.update(read)
        return read
