"""The embedded backend's MemoryIndex: a facade over the parts of this package, under one lock.

Vectors live in memory as int8, partitioned by user (.partitions), searched exactly (.exact_scan) or, over many rows,
approximately (.approximate); a filter pinned to facets searches their rows (.facets); hits are rescored on float32
vectors (.exact_vectors). Keyword search is SQLite FTS5 in the records' file (.keyword_table). The whole index is
derived: `load()` fills it from the snapshot or the records (.loading), other processes' changes are followed through
the file's log (.following), and `close()` writes the snapshot a restart starts from (.snapshots).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mnemo.adapters.sqlite import change_log
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index.approximate import ApproximateSearch
from mnemo.adapters.sqlite.memory_index.exact_vectors import ExactVectors
from mnemo.adapters.sqlite.memory_index.facet_versions import StaleFacets
from mnemo.adapters.sqlite.memory_index.facets import FacetIndex
from mnemo.adapters.sqlite.memory_index.faiss_index import ApproximateIndex
from mnemo.adapters.sqlite.memory_index.following import IndexLog
from mnemo.adapters.sqlite.memory_index.keyword_table import KeywordTable
from mnemo.adapters.sqlite.memory_index.loading import Batches, Loader
from mnemo.adapters.sqlite.memory_index.partitions import Partitions
from mnemo.adapters.sqlite.memory_index.records import IndexedRecords
from mnemo.adapters.sqlite.memory_index.row_documents import DocumentSource, VectorSource
from mnemo.adapters.sqlite.memory_index.rows import IndexRows
from mnemo.adapters.sqlite.memory_index.search import IndexSearch
from mnemo.adapters.sqlite.memory_index.snapshots import Snapshots
from mnemo.adapters.sqlite.memory_index.tuning import IndexTuning
from mnemo.domain import filters as f
from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors
from mnemo.ports.facets import IndexWords
from mnemo.ports.memory_index import IndexHit


class LocalMemoryIndex:
    """Each memory has a key: its row in the keyword table, and its id in the approximate index. A search over fewer
    than `tuning.ann_min_rows` rows scans them exactly, a broader one asks the approximate index (built once the index
    holds that many rows) for candidates, falling back to the exact scan when the filter keeps too few. With a
    `documents` source only the hot fields of each memory are kept in memory (.row_documents); with both sources, a
    `snapshot` directory. `facets`: what reads the facets and keywords of a memory (a language pack). With `records`,
    the index follows the changes other processes make to the file; every index writes that log, and takes its keys
    from the file."""

    def __init__(
        self,
        db: Database,
        dimension: int,
        *,
        facets: IndexWords,
        documents: DocumentSource | None = None,
        vectors: VectorSource | None = None,
        tuning: IndexTuning | None = None,
        snapshot: Path | None = None,
        records: IndexedRecords | None = None,
    ) -> None:
        self._db = db
        self._records = records
        self.tuning = tuning or IndexTuning()
        self._lock = threading.RLock()
        self._keywords = KeywordTable(db, self.tuning.keyword_term_cap, words=facets)
        self.secure_delete = self._keywords.secure_delete
        self._log = IndexLog(db)
        self._rows = IndexRows(
            Partitions(dimension, documents, facets),
            FacetIndex(),
            ExactVectors(vectors, self._lock),
            ApproximateSearch(self.tuning),
        )
        # A snapshot only with both sources, whose records hold what the index does not keep in memory.
        self._stale = StaleFacets(facets)
        self._snapshots = Snapshots(
            db, snapshot if documents is not None and vectors is not None else None, self._stale
        )
        self._loader = Loader(db, self._rows, self._keywords, self._log, self._snapshots)
        self._search = IndexSearch(self._rows, self._keywords, self._lock)

    @property
    def dimension(self) -> int:
        return self._rows.partitions.dimension

    @property
    def _ann(self) -> ApproximateIndex | None:
        """The approximate index, once the rows are many enough to have one."""
        return self._rows.approximate.index

    # ---- loading and closing ------------------------------------------------------------------------

    def load(self, batches: Batches, dimension: int | None = None) -> None:
        """Fill the vectors from the record store; repair the keyword table where it does not match the records
        (rows of memories it lacks added, rows of memories that are gone deleted). Processes serving one file load
        one at a time."""
        with self._lock, self._snapshots.locked():
            self._loader.load(batches, dimension)

    def close(self) -> None:
        """Write the snapshot a restart starts from (nothing without a snapshot directory). Call it when no write
        can come any more: before the file closes."""
        if self._snapshots.directory is None:
            return
        self.refresh()
        with self._lock, self._snapshots.locked():
            self._snapshots.write(self._rows, self._log)

    # ---- writes -------------------------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        if not records:
            return
        with self._lock:
            with self._db.write() as conn:
                self._follow(conn)
                records, vectors = self._still_stored(records, vectors)
                if not records:
                    return
                keys, replaced, given = self._keys_for(conn, records)
                self._keywords.delete(conn, replaced)
                self._keywords.insert(conn, zip(keys, records, strict=True))
                self._log.write(conn, [(r.id, key) for r, key in zip(records, keys, strict=True)])
            self._rows.partitions.keys.update(given)
            self._rows.upsert(records, vectors, keys, replaced)
            self._snapshots.note_generation()

    def remove(self, memory_ids: Sequence[str]) -> None:
        with self._lock:
            with self._db.write() as conn:
                self._follow(conn)
                known, orphans = self._rows.partitions.keys, self._log.orphans
                gone = [(i, key) for i in memory_ids if (key := known.get(i) or orphans.pop(i, None))]
                self._keywords.delete(conn, [key for _, key in gone])
                self._log.write(conn, [(i, None) for i, _ in gone])
            self._rows.remove([i for i, _ in gone])
            self._snapshots.note_generation()

    def clear(self) -> None:
        with self._lock:
            with self._db.write() as conn:
                self._keywords.clear(conn)
                self._log.write(conn, [(change_log.EVERYTHING, None)])
            self._rows.reset()
            self._log.reset()
            self._rows.removed = True
            self._snapshots.note_generation()

    def purge(self) -> None:
        """The tokens of the rows deleted since the last purge taken out of the keyword table's segments: nothing
        to do with `secure-delete` (a delete took them out); else one `optimize`. Called once per delete operation,
        however many rows it removed. Then the file's WAL is checkpointed and truncated (its older page images hold
        the removed rows; the record store sharing the file finds it empty when its own purge follows)."""
        with self._lock:
            if not self._rows.removed:
                return
            if not self.secure_delete:
                self._keywords.optimize()
            self._rows.removed = False
        self._db.checkpoint()

    # ---- reads --------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """The changes other processes made to the index since this one last looked, applied (nothing to read when
        no other connection committed)."""
        if self._log.moved():
            with self._lock:
                self._follow(self._db.read())

    def count(self) -> int:
        self.refresh()
        return len(self._rows.partitions.keys)

    def search(self, vector: Vectors, query_text: str, expr: f.Expr, limit: int) -> list[IndexHit]:
        self.refresh()
        if self._stale.pending:
            with self._lock:
                self._stale.step(self._rows)
        return self._search.search(vector, query_text, expr, limit)

    def stale_facets(self) -> int:
        """How many rows still hold facets another version of the rules read (.facet_versions)."""
        return self._stale.pending

    def rederive_facets(self, limit: int | None = None) -> int:
        """Up to `limit` (None: all) of the rows with stale facets read again now; how many."""
        with self._lock:
            return self._stale.rederive(self._rows, limit)

    # ---- helpers ------------------------------------------------------------------------------------

    def _follow(self, conn: sqlite3.Connection) -> None:
        """Other processes' changes applied (the index lock held; in a write transaction, or on a reader)."""
        self._log.follow(conn, self._rows, self._records, self._reload)

    def _reload(self) -> None:
        """Everything loaded again from the records: this index fell further behind than the log keeps."""
        assert self._records is not None
        self._loader.load(self._records.scan(), self.dimension)

    def _keys_for(
        self, conn: sqlite3.Connection, records: Sequence[MemoryRecord]
    ) -> tuple[list[int], list[int], dict[str, int]]:
        """Each record's key, the keys of the records indexed already (their rows are replaced), and the keys given
        now to the others (inside the write transaction)."""
        known = self._rows.partitions.keys
        replaced = [key for r in records if (key := known.get(r.id)) is not None]
        new_ids = list(dict.fromkeys(r.id for r in records if r.id not in known))
        given = dict(zip(new_ids, self._log.allocate(conn, len(new_ids)), strict=True))
        return [known.get(r.id) or given[r.id] for r in records], replaced, given

    def _still_stored(
        self, records: Sequence[MemoryRecord], vectors: Vectors
    ) -> tuple[Sequence[MemoryRecord], Vectors]:
        """The records (and their vectors) but those deleted by another process since their caller read them: a
        memory deleted meanwhile is not indexed again."""
        if self._records is None:
            return records, vectors
        present = self._records.present([r.id for r in records])
        kept = [at for at, r in enumerate(records) if r.id in present]
        if len(kept) < len(records):
            return [records[at] for at in kept], np.asarray(vectors)[kept]
        return records, vectors
