"""The index's snapshot (.snapshot_files): taken when the storage closes, restored at the next start when it matches
the file.

Only an index with both a document and a vector source has one: what it does not keep in memory is read from the
records. The index notes the file's memory generation after each of its own writes; a snapshot is written only by
the process whose write was the file's last (another's would not match the file), and restored only when written at
the generation, width and keyword row the file has now. Its rows' facets are restored with the version of the rules
that read them; rows of another are read again (.facet_versions).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import snapshot_files as files
from mnemo.adapters.sqlite.memory_index.facet_versions import StaleFacets
from mnemo.adapters.sqlite.memory_index.following import IndexLog
from mnemo.adapters.sqlite.memory_index.partitions import Hot, Partition, Partitions
from mnemo.adapters.sqlite.memory_index.rows import IndexRows


class Snapshots:
    """The snapshot directory of one index (None: it keeps none), and the generation of the memories it reflects
    (`seen`; -1: none yet, its snapshot would not be used)."""

    def __init__(self, db: Database, directory: Path | None, stale: StaleFacets) -> None:
        self._db = db
        self._stale = stale
        self.directory = directory
        self.seen = -1
        if directory is not None:
            files.track_generation(db)

    def locked(self) -> AbstractContextManager[None]:
        """The snapshot held by this process alone, for a load or a write."""
        return files.locked(self.directory)

    def note_generation(self) -> None:
        """The memories' generation this index reflects: the file's now, after a write of the index (the records it
        indexed were written before it)."""
        if self.directory is not None:
            self.seen = files.generation_of(self._db)

    def take(self, rows: IndexRows, log: IndexLog) -> bool:
        """The snapshot restored into the empty `rows` when it matches the file; whether it was. It is deleted
        either way: used once, or stale."""
        self._stale.clear()
        if self.directory is None:
            return False
        snapshot = files.read(self.directory, files.mark_of(self._db, rows.partitions.dimension))
        if snapshot is not None:
            log.next_key = snapshot.next_key
            hots = rows.partitions.restore(snapshot)
            rows.facets.file(snapshot.keys.tolist(), hots)
            self._stale.restored(snapshot.keys, snapshot.facets_version)
            if snapshot.approximate is not None:
                rows.approximate.read(snapshot.approximate, snapshot.approximate_trained_on)
            self.seen = snapshot.mark.generation
        files.remove(self.directory)
        return snapshot is not None

    def write(self, rows: IndexRows, log: IndexLog) -> None:
        """The snapshot of `rows`, unless another process's or a tool's writes came after this index's last one: its
        snapshot would not be used (the last writer's, if it is written, stays)."""
        if self.directory is None or self.seen != files.generation_of(self._db):
            return
        partitions = rows.partitions
        index = rows.approximate.index
        mark = files.mark_of(self._db, partitions.dimension, self.seen)
        snapshot = _captured(partitions, mark, log.next_key, index.trained_on if index is not None else 0)
        # Rows still stale make the snapshot's facets of no known version: the next start reads them all again.
        snapshot.facets_version = None if self._stale.pending else self._stale.version
        files.write(self.directory, snapshot, index.save if index is not None else None)


def _captured(partitions: Partitions, mark: files.Mark, next_key: int, trained_on: int) -> files.Snapshot:
    """The partitions' rows as a snapshot, a partition after another (the hot fields as a table of distinct rows)."""
    parts = partitions.live()
    table: dict[Hot, int] = {}
    hot_rows = np.fromiter((table.setdefault(row, len(table)) for p in parts for row in p.hot), dtype=np.int32)
    keys, codes, scales = _arrays(parts, partitions.dimension)
    return files.Snapshot(
        mark=mark,
        next_key=next_key,
        users=[p.user for p in parts],
        counts=[len(p) for p in parts],
        ids=[i for p in parts for i in p.ids],
        keys=keys,
        codes=codes,
        scales=scales,
        hot_table=list(table),
        hot_rows=hot_rows,
        approximate=None,
        approximate_trained_on=trained_on,
    )


def _arrays(parts: list[Partition], dimension: int) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """The partitions' keys and scales, each as one array, and their codes, a block per partition."""
    if not parts:
        empty = np.zeros((0, dimension), dtype=np.int8)
        return np.zeros(0, dtype=np.int64), [empty], np.zeros(0, np.float32)
    keys = np.concatenate([p.keys[: len(p)] for p in parts])
    scales = np.concatenate([p.scales[: len(p)] for p in parts])
    return keys, [p.codes[: len(p)] for p in parts], scales
