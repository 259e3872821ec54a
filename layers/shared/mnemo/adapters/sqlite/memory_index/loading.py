"""Filling the index from its file at start (or after falling too far behind the other processes' changes).

From the snapshot when it matches the file (.snapshots); else from the records, a batch at a time: each memory keeps
the key of its keyword row when it has one, a memory without one gets a new key and its row, and the rows of
memories that are gone (or repeat a memory) are deleted, so that the keyword table matches the records again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index.following import IndexLog
from mnemo.adapters.sqlite.memory_index.keyword_table import KeywordTable
from mnemo.adapters.sqlite.memory_index.rows import IndexRows
from mnemo.adapters.sqlite.memory_index.snapshots import Snapshots
from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors

Batches = Iterable[tuple[list[MemoryRecord], Vectors]]


class Loader:
    """Fills the index's parts from the snapshot or the records. The caller holds the index lock."""

    def __init__(
        self, db: Database, rows: IndexRows, keywords: KeywordTable, log: IndexLog, snapshots: Snapshots
    ) -> None:
        self._db = db
        self._rows = rows
        self._keywords = keywords
        self._log = log
        self._snapshots = snapshots

    def load(self, batches: Batches, dimension: int | None) -> None:
        """Every row filled anew (`dimension`: the stored embeddings' width, None when there are none)."""
        # Where the log stands before anything is read: a change made during the load is applied again after it.
        self._log.restart(self._db.read())
        partitions = self._rows.partitions
        partitions.dimension = dimension or partitions.dimension
        self._rows.reset()
        self._log.reset()
        if self._snapshots.take(self._rows, self._log):
            return
        listed, repeated, last = self._keywords.listed()
        self._log.next_key = max(self._log.next_key, last + 1)
        for records, vectors in batches:
            self._load_batch(records, vectors, listed)
        stale = repeated + list(listed.values())  # rows of memories no batch held
        if stale:
            with self._db.write() as conn:
                self._keywords.delete(conn, stale)
        with self._db.write() as conn:  # the file's key counter is past every key, whoever gave it
            self._log.allocate(conn, 0)
        self._rows.approximate.refresh(partitions)
        self._snapshots.note_generation()

    def _load_batch(self, records: list[MemoryRecord], vectors: Vectors, listed: dict[str, int]) -> None:
        """The rows of a batch of records; `listed` (the keyword rows not yet claimed) loses the rows they claim."""
        missing = [r for r in records if r.id not in listed]
        keys = [listed.pop(r.id) if r.id in listed else 0 for r in records]
        if missing:
            keys = self._with_keyword_rows(records, keys, missing)
        known = self._rows.partitions.keys
        for record, key in zip(records, keys, strict=True):
            known[record.id] = key
        self._rows.add(records, vectors, keys)

    def _with_keyword_rows(
        self, records: Sequence[MemoryRecord], keys: list[int], missing: list[MemoryRecord]
    ) -> list[int]:
        """The keys of the records, the `missing` ones (key 0) given new keys and keyword rows."""
        with self._db.write() as conn:
            fresh = iter(self._log.allocate(conn, len(missing)))
            keys = [key or next(fresh) for key in keys]
            lacking = {r.id for r in missing}
            rows = [(key, r) for key, r in zip(keys, records, strict=True) if r.id in lacking]
            self._keywords.insert(conn, rows)
            self._log.write(conn, [(r.id, key) for key, r in rows])
        return keys
