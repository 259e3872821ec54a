"""The embedded search index: exact vector search in NumPy, keyword search with SQLite FTS5 (BM25).

Vectors live in memory, partitioned by user_id so that a search scoped to one user touches only that
user's rows. The FTS5 table lives in the same SQLite file as the records. The whole index is derived:
`load()` fills it from the record store at start-up and rebuilds the keyword table if it has drifted.

A deleted memory's words must leave the file. FTS5 keeps the tokens of a deleted row in its index segments (only
a delete marker is added) until the segments holding them are merged. So, after a delete (`purge`): with SQLite
3.42 or later, the table's `secure-delete` option is on and a delete removes the tokens at once; with an older
SQLite, `optimize` merges every segment into one, without the deleted rows (its cost grows with the table: see
bench/erasure.py). The rows' content (the `_content` shadow table) goes with the row, zeroed by `secure_delete`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from mnemo.adapters.sqlite import change_log
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import int8_vectors, snapshot_files
from mnemo.adapters.sqlite.memory_index.faiss_index import ApproximateIndex
from mnemo.adapters.sqlite.memory_index.row_documents import (
    FACETS_AT,
    ONLY_HOT,
    Doc,
    DocumentSource,
    Interner,
    RowDoc,
    VectorSource,
)
from mnemo.domain import filters as f
from mnemo.domain.claims import FACETS_FIELD
from mnemo.domain.memory import MemoryRecord
from mnemo.domain.text import date_words, keywords
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_index import IndexHit

# The keyword table. `dated` holds the day the memory was made, in words ("8 May 2023"), so that a question
# naming a day, a month or a year finds what was said then: keyword context only, the memory's text is
# unchanged. `user_id` is indexed so that a search scoped to users intersects their rows inside FTS5 instead
# of scoring every matching row of every user; its words never score (weight 0).
FTS_ARGS = "text, memory_id UNINDEXED, user_id, dated, tokenize = 'porter unicode61 remove_diacritics 2'"
SCHEMA = f"CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5({FTS_ARGS});"
DATED_WEIGHT = 1.0  # BM25 weight of a date word against a word of the text
_BM25 = f"bm25(memory_fts, 1.0, 0.0, 0.0, {DATED_WEIGHT})"
_CAPPED_COUNT = "SELECT count(*) FROM (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)"
FACETED_MAX = 8_192  # a facet filed on at most this many rows is searched through its rows alone
GATHERS_PER_PARTITION = 32  # candidates of at most this many partitions are gathered a partition at a time
# A scoped search over at most this many rows, with a facet filed on more rows than the facet path takes (FACETED_MAX,
# or a quarter of the rows searched), reads the facets of its rows (a microsecond or less each) instead of checking
# the whole filter on each (several microseconds).
FACET_SCAN_MAX = 4_096
AMONG_MAX = 4_096  # at most this many rows (of a facet) are listed in a keyword query kept to them
TERM_COUNTS_KEPT = 10_000  # terms whose counts are remembered (forgotten all at once past this)
_INSERT = "INSERT INTO memory_fts (rowid, text, memory_id, user_id, dated) VALUES (?, ?, ?, ?, ?)"
# FTS5's `secure-delete` option (SQLite 3.42+): a delete takes the row's tokens out of the segments at once.
SECURE_DELETE_SINCE = (3, 42, 0)

ROW_CHUNK = 16_384  # rows of int8 codes widened to float32 at once by a large exact scan
RESCORE_MARGIN = 8  # semantic candidates chosen on int8 scores beyond the limit, before the exact rescoring
EXACT_CACHED = 32_768  # float32 vectors kept in memory in front of the vector source (1.5 KB each: 48 MB at most)


class IndexedRecords(Protocol):
    """The records an index is derived from (the file's record store): what it reads to apply another process's
    change (mnemo.adapters.sqlite.change_log) and to rebuild itself after falling too far behind."""

    def present(self, memory_ids: Sequence[str]) -> set[str]:
        """Those of these memories whose record exists."""
        ...

    def records(self, memory_ids: Sequence[str]) -> tuple[list[MemoryRecord], Vectors]:
        """The records (those that exist) and their stored embeddings, row for row."""
        ...

    def scan(self) -> Iterable[tuple[list[MemoryRecord], Vectors]]:
        """Every record and its embedding, a batch at a time."""
        ...


@dataclass(frozen=True, slots=True)
class IndexTuning:
    """When the index searches approximately, and how (mnemo.settings documents each)."""

    ann_min_rows: int = 20_000  # a search over this many rows or more asks the approximate index for candidates
    ann_nprobe: int = 64  # inverted lists the approximate index scans per search
    ann_max_candidates: int = 8_192  # candidates asked for before a filter that keeps too few falls back to exact
    keyword_term_cap: int = 20_000  # a word in more memories than this is left out of the keyword search


class _Partition:
    """The rows of one user (or of memories with no user): int8 codes and scales, ids, keys and hot fields; the whole
    documents too when the index has no document source."""

    def __init__(self, number: int, user: str | None, dimension: int) -> None:
        self.number = number
        self.user = user
        self.codes = np.zeros((8, dimension), dtype=np.int8)
        self.scales = np.zeros(8, dtype=np.float32)
        self.keys = np.zeros(8, dtype=np.int64)
        self.ids: list[str] = []
        self.hot: list[tuple[Any, ...]] = []
        self.cold: list[Doc] = []

    @classmethod
    def restored(
        cls, number: int, user: str | None, codes: np.ndarray, scales: np.ndarray, keys: np.ndarray, ids: list[str]
    ) -> _Partition:
        """A partition of a snapshot's rows (its codes may be a memory-mapped view: copied when the partition
        grows)."""
        part = cls.__new__(cls)
        part.number, part.user = number, user
        part.codes, part.scales, part.keys = codes, scales, keys
        part.ids = ids
        part.hot = []
        part.cold = []
        return part

    def __len__(self) -> int:
        return len(self.ids)

    def append(self, memory_id: str, key: int, hot: tuple[Any, ...], cold: Doc | None, code: Any, scale: float) -> int:
        row = len(self.ids)
        if row == len(self.codes):
            self.codes = _grown(self.codes)
            self.scales = _grown(self.scales)
            self.keys = _grown(self.keys)
        self.codes[row] = code
        self.scales[row] = scale
        self.keys[row] = key
        self.ids.append(memory_id)
        self.hot.append(hot)
        if cold is not None:
            self.cold.append(cold)
        return row

    def remove(self, row: int) -> int | None:
        """Remove a row by moving the last row into its place; returns the key of the row that moved, if any."""
        last = len(self.ids) - 1
        moved = None
        if row != last:
            self.codes[row] = self.codes[last]
            self.scales[row] = self.scales[last]
            self.keys[row] = self.keys[last]
            self.ids[row] = self.ids[last]
            self.hot[row] = self.hot[last]
            if self.cold:
                self.cold[row] = self.cold[last]
            moved = int(self.keys[row])
        self.ids.pop()
        self.hot.pop()
        if self.cold:
            self.cold.pop()
        return moved

    def doc(self, row: int, source: DocumentSource | None) -> RowDoc:
        memory_id = self.ids[row]
        cold: Any = self.cold[row] if self.cold else (lambda: source(memory_id) if source else None)
        return RowDoc(memory_id, self.user, self.hot[row], cold)

    def scores(self, query: Vectors) -> np.ndarray:
        count = len(self.ids)
        return int8_vectors.scores(self.codes[:count], self.scales[:count], query)

    def vectors(self, start: int, end: int) -> np.ndarray:
        return int8_vectors.dequantize(self.codes[start:end], self.scales[start:end])

    def top(
        self, query: Vectors, check: Any, limit: int, source: DocumentSource | None, scores: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        count = len(self.ids)
        if count == 0 or limit <= 0:
            return []
        if scores is None:
            scores = self.scores(query)
        window = min(count, max(limit * 4, 64))
        while True:
            if window < count:
                best = np.argpartition(-scores, window - 1)[:window]
                best = best[np.argsort(-scores[best], kind="stable")]
            else:
                best = np.argsort(-scores, kind="stable")
            found: list[tuple[str, float]] = []
            for row in best:
                if check(self.doc(row, source)):
                    found.append((self.ids[row], float(scores[row])))
                    if len(found) == limit:
                        return found
            if window >= count:
                return found
            window = count


def _once_per_hot_key(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A filter that reads only the hot fields and the user, checked once per distinct RowDoc.hot_key of a search:
    the rows of a user mostly share a few (their agent, state, facets), and the check costs microseconds a row."""
    known: dict[tuple[Any, ...], bool] = {}

    def once(doc: RowDoc) -> bool:
        key = doc.hot_key
        try:
            passed = known.get(key)
        except TypeError:  # a value that cannot be a key (none of the index's own): checked as it is
            return check(doc)
        if passed is None:
            passed = known[key] = check(doc)
        return passed

    return once


def _faceted_rows(parts: Sequence[_Partition], facets: set[str]) -> np.ndarray:
    """The keys of the rows of these partitions filed under any of these facets."""
    keys = [
        part.keys[row]
        for part in parts
        for row, hot in enumerate(part.hot)
        if (filed := hot[FACETS_AT]) and not facets.isdisjoint(filed)
    ]
    return np.array(keys, dtype=np.int64)


def _grown(array: np.ndarray) -> np.ndarray:
    grown = np.zeros((len(array) * 2, *array.shape[1:]), dtype=array.dtype)
    grown[: len(array)] = array
    return grown


class LocalMemoryIndex:
    """Each memory has a key: its row in the keyword table, and its id in the approximate index. The vectors are
    int8 (.int8_vectors) in one partition per user; a search over fewer than `tuning.ann_min_rows` rows scans them
    exactly, a broader one asks the approximate index (built once the index holds that many rows) for candidates,
    scores them exactly and checks the filter, falling back to the exact scan when the filter keeps too few. With a
    `documents` source only the hot fields of each memory are kept in memory (.row_documents). With `records`, the
    index follows the changes other processes make to the file (mnemo.adapters.sqlite.change_log); every index
    writes that log, and takes its keys from the file."""

    def __init__(
        self,
        db: Database,
        dimension: int,
        *,
        documents: DocumentSource | None = None,
        vectors: VectorSource | None = None,
        tuning: IndexTuning | None = None,
        snapshot: Path | None = None,
        records: IndexedRecords | None = None,
    ) -> None:
        self._db = db
        self._records = records
        self._vector_source = vectors
        # The float32 vectors: all of them without a vector source; with one, a cache of at most EXACT_CACHED rows in
        # front of it (a search rescores ~20 candidates: reading them from SQLite cost ~0.1 ms alone, ~0.5 ms under
        # load). Every write of a row replaces or drops its entry; `_exact_writes` counts them, so that a vector
        # read from the source while a write ran is not cached.
        self._exact: dict[str, np.ndarray] = {}
        self._exact_writes = 0
        self.dimension = dimension
        self.tuning = tuning or IndexTuning()
        self._documents = documents
        self._interner = Interner()
        self._lock = threading.RLock()
        self._partitions: dict[str | None, _Partition] = {}
        self._numbered: list[_Partition | None] = []
        # memory id -> its key: its row in the keyword table (memory_id is not an indexed column of FTS5, so rows
        # are deleted by rowid, never by a scan of the table) and its id in the approximate index.
        self._keys: dict[str, int] = {}
        self._slot_part = np.full(1024, -1, dtype=np.int32)  # key -> number of the partition holding it, or -1
        self._slot_row = np.zeros(1024, dtype=np.int32)  # key -> its row there
        self._next_key = 1
        self._facet_keys: dict[str, set[int]] = {}  # facet -> the keys of the rows filed under it
        self._term_counts: dict[str, tuple[int, int]] = {}  # term -> (memories holding it, capped; index size then)
        self._ann: ApproximateIndex | None = None
        existing = db.read().execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").fetchone()
        if existing is not None and _args(existing[0]) != _args(SCHEMA):
            # An older layout: drop it; load() refills the keyword table from the records.
            db.executescript("DROP TABLE memory_fts;")
        db.executescript(SCHEMA)
        db.executescript(change_log.INDEX_LOG_SCHEMA)
        self._watch = change_log.Watch(db)
        self._log_seen = change_log.last_seq(db.read(), "index_log")  # the last log row this index reflects
        self._pruning = change_log.Pruning("index_log")
        self._me = change_log.writer_token()
        # Keys of memories another process indexed whose records were gone when this one read them: the keyword row
        # this process deletes if it is the one taking them out.
        self._orphans: dict[str, int] = {}
        self.secure_delete = secure_delete_supported()
        if self.secure_delete:
            with db.write() as conn:
                conn.execute("INSERT INTO memory_fts (memory_fts, rank) VALUES ('secure-delete', 1)")
        self._removed = False  # rows deleted (or replaced) since the last purge
        # The snapshot directory (mnemo.adapters.sqlite.index_snapshot): only with both sources, whose records hold
        # what the index does not keep in memory.
        self._snapshot = snapshot if documents is not None and vectors is not None else None
        self._seen = -1  # the memories' generation the index reflects (-1: none yet; its snapshot would not be used)
        if self._snapshot is not None:
            snapshot_files.track_generation(db)

    # ---- loading ------------------------------------------------------------------------------------

    def load(self, batches: Iterable[tuple[list[MemoryRecord], Vectors]], dimension: int | None = None) -> None:
        """Fill the vectors from the record store; repair the keyword table where it does not match the records
        (rows of memories it lacks added, rows of memories that are gone deleted). Processes serving one file load
        one at a time."""
        with self._lock, snapshot_files.locked(self._snapshot):
            self._load(batches, dimension)

    def _load(self, batches: Iterable[tuple[list[MemoryRecord], Vectors]], dimension: int | None) -> None:
        with self._lock:
            # Where the log stands before anything is read: a change made during the load is applied again after it.
            self._log_seen = change_log.last_seq(self._db.read(), "index_log")
            self.dimension = dimension or self.dimension
            self._reset()
            if self._snapshot is not None:
                snapshot = snapshot_files.read(self._snapshot, snapshot_files.mark_of(self._db, self.dimension))
                if snapshot is not None:
                    self._restore(snapshot)
                    self._seen = snapshot.mark.generation
                snapshot_files.remove(self._snapshot)  # used once, or stale
                if snapshot is not None:
                    return
            listed: dict[str, int] = {}
            stale: list[tuple[int]] = []
            for rowid, memory_id in self._db.read().execute("SELECT rowid, memory_id FROM memory_fts"):
                if memory_id in listed:
                    stale.append((rowid,))
                else:
                    listed[memory_id] = rowid
                self._next_key = max(self._next_key, rowid + 1)
            for records, vectors in batches:
                missing = [r for r in records if r.id not in listed]
                keys = [listed.pop(r.id) if r.id in listed else 0 for r in records]
                if missing:
                    with self._db.write() as conn:
                        fresh = iter(self._allocated(conn, len(missing)))
                        keys = [key or next(fresh) for key in keys]
                        lacking = {r.id for r in missing}
                        pairs = zip(keys, records, strict=True)
                        rows = [_keyword_row(key, r) for key, r in pairs if r.id in lacking]
                        conn.executemany(_INSERT, rows)
                        self._log(conn, [(row[2], row[0]) for row in rows])
                for record, key in zip(records, keys, strict=True):
                    self._keys[record.id] = key
                self._add_rows(records, vectors, keys)
            stale.extend((rowid,) for rowid in listed.values())
            if stale:
                with self._db.write() as conn:
                    conn.executemany("DELETE FROM memory_fts WHERE rowid = ?", stale)
            with self._db.write() as conn:  # the file's key counter is past every key, whoever gave it
                self._allocated(conn, 0)
            self._refresh_approximate()
            self._note_generation()

    def _restore(self, snapshot: snapshot_files.Snapshot) -> None:
        self.dimension = snapshot.mark.dimension
        self._next_key = snapshot.next_key
        if len(snapshot.keys):
            self._ensure_slots(int(snapshot.keys.max()))
        self._keys = dict(zip(snapshot.ids, snapshot.keys.tolist(), strict=True))
        hot = [snapshot.hot_table[at] for at in snapshot.hot_rows.tolist()]
        start = 0
        codes = snapshot.codes
        assert isinstance(codes, np.ndarray)  # read back as one (memory-mapped) array
        for user, count in zip(snapshot.users, snapshot.counts, strict=True):
            end = start + count
            keys = np.array(snapshot.keys[start:end])
            part = _Partition.restored(
                len(self._numbered),
                user,
                codes[start:end].view(np.ndarray),  # no memmap subclass overhead per row
                np.array(snapshot.scales[start:end]),
                keys,
                snapshot.ids[start:end],
            )
            part.hot = hot[start:end]
            for key, row_hot in zip(keys.tolist(), part.hot, strict=True):
                for facet in row_hot[FACETS_AT] or ():
                    self._facet_keys.setdefault(facet, set()).add(key)
            self._partitions[user] = part
            self._numbered.append(part)
            self._slot_part[keys] = part.number
            self._slot_row[keys] = np.arange(count, dtype=np.int32)
            start = end
        if snapshot.approximate is not None:
            self._ann = ApproximateIndex.read(
                snapshot.approximate, self.tuning.ann_nprobe, snapshot.approximate_trained_on
            )

    def close(self) -> None:
        """Write the snapshot a restart starts from (nothing without a snapshot directory). Call it when no write
        can come any more: before the file closes."""
        if self._snapshot is None:
            return
        self.refresh()
        with self._lock, snapshot_files.locked(self._snapshot):
            if self._seen != snapshot_files.generation_of(self._db):
                # Not the last writer (another process's or a tool's writes came after this index's last one): its
                # snapshot would not be used; the last writer's, if it is written, stays.
                return
            parts = [p for p in self._numbered if p is not None]
            table: dict[tuple[Any, ...], int] = {}
            hot_rows = np.fromiter((table.setdefault(row, len(table)) for p in parts for row in p.hot), dtype=np.int32)
            empty = np.zeros((0, self.dimension), dtype=np.int8)
            snapshot = snapshot_files.Snapshot(
                mark=snapshot_files.mark_of(self._db, self.dimension, self._seen),
                next_key=self._next_key,
                users=[p.user for p in parts],
                counts=[len(p) for p in parts],
                ids=[i for p in parts for i in p.ids],
                keys=np.concatenate([p.keys[: len(p)] for p in parts]) if parts else np.zeros(0, dtype=np.int64),
                codes=[p.codes[: len(p)] for p in parts] if parts else [empty],
                scales=np.concatenate([p.scales[: len(p)] for p in parts]) if parts else np.zeros(0, np.float32),
                hot_table=list(table),
                hot_rows=hot_rows,
                approximate=None,
                approximate_trained_on=self._ann.trained_on if self._ann is not None else 0,
            )
            snapshot_files.write(self._snapshot, snapshot, self._ann.save if self._ann is not None else None)

    def _reset(self) -> None:
        self._exact.clear()
        self._exact_writes += 1
        self._orphans.clear()
        self._facet_keys.clear()
        self._partitions.clear()
        self._numbered.clear()
        self._keys.clear()
        self._slot_part[:] = -1
        self._next_key = 1
        self._ann = None

    # ---- writes -------------------------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        if not records:
            return
        with self._lock:
            with self._db.write() as conn:
                self._follow(conn)
                if self._records is not None:
                    # A memory deleted (by another process) since its caller read it is not indexed again.
                    present = self._records.present([r.id for r in records])
                    kept = [at for at, r in enumerate(records) if r.id in present]
                    if len(kept) < len(records):
                        records, vectors = [records[at] for at in kept], np.asarray(vectors)[kept]
                if not records:
                    return
                replaced = [key for r in records if (key := self._keys.get(r.id)) is not None]
                new_ids = list(dict.fromkeys(r.id for r in records if r.id not in self._keys))
                given = dict(zip(new_ids, self._allocated(conn, len(new_ids)), strict=True))
                keys = [self._keys.get(r.id) or given[r.id] for r in records]
                conn.executemany("DELETE FROM memory_fts WHERE rowid = ?", [(key,) for key in replaced])
                conn.executemany(_INSERT, [_keyword_row(key, r) for key, r in zip(keys, records, strict=True)])
                self._log(conn, [(r.id, key) for r, key in zip(records, keys, strict=True)])
            self._keys.update(given)
            self._apply_upsert(records, vectors, keys, replaced)
            self._note_generation()

    def _apply_upsert(
        self, records: Sequence[MemoryRecord], vectors: Vectors, keys: Sequence[int], replaced: Sequence[int]
    ) -> None:
        """The rows of these records, under these keys, in memory (the rows of the `replaced` keys taken out first)."""
        self._detach(replaced)
        if not self._partitions:
            # An empty index takes the width it is given: after clear() the embedder may have changed.
            self.dimension = int(np.asarray(vectors).shape[1])
        self._add_rows(records, vectors, keys)
        if self._ann is not None:
            self._ann.remove(np.asarray(replaced, dtype=np.int64))
            self._ann.add(np.asarray(keys, dtype=np.int64), np.asarray(vectors, dtype=np.float32))
        self._refresh_approximate()
        self._removed = self._removed or bool(replaced)

    def remove(self, memory_ids: Sequence[str]) -> None:
        with self._lock:
            with self._db.write() as conn:
                self._follow(conn)
                gone = [(i, key) for i in memory_ids if (key := self._keys.get(i) or self._orphans.pop(i, None))]
                conn.executemany("DELETE FROM memory_fts WHERE rowid = ?", [(key,) for _, key in gone])
                self._log(conn, [(i, None) for i, _ in gone])
            self._apply_remove([i for i, _ in gone])
            self._note_generation()

    def _apply_remove(self, memory_ids: Sequence[str]) -> None:
        gone = [key for i in memory_ids if (key := self._keys.pop(i, None)) is not None]
        self._exact_writes += 1
        for memory_id in memory_ids:
            self._exact.pop(memory_id, None)
        self._detach(gone)
        if self._ann is not None:
            self._ann.remove(np.asarray(gone, dtype=np.int64))
        self._removed = self._removed or bool(gone)

    def clear(self) -> None:
        with self._lock:
            with self._db.write() as conn:
                conn.execute("DELETE FROM memory_fts")
                self._log(conn, [(change_log.EVERYTHING, None)])
            self._reset()
            self._removed = True
            self._note_generation()

    # ---- other processes' changes (mnemo.adapters.sqlite.change_log) ----------------------------------

    def refresh(self) -> None:
        """The changes other processes made to the index since this one last looked, applied (a few microseconds
        when there are none)."""
        if self._watch.moved():
            with self._lock:
                self._follow(self._db.read())

    def _allocated(self, conn: sqlite3.Connection, count: int) -> list[int]:
        """`count` keys no process has given, from the file's counter (inside a write transaction)."""
        stored = int(conn.execute("SELECT next_key FROM index_keys WHERE id = 0").fetchone()[0])
        start = max(stored, self._next_key)
        self._next_key = start + count
        conn.execute("UPDATE index_keys SET next_key = ? WHERE id = 0", (self._next_key,))
        return list(range(start, start + count))

    def _log(self, conn: sqlite3.Connection, changes: Sequence[tuple[str, int | None]]) -> None:
        """This process's changes in the index log (in the transaction that writes their keyword rows)."""
        if not changes:
            return
        me = self._me
        conn.executemany(
            "INSERT INTO index_log (memory_id, key, writer) VALUES (?, ?, ?)", [(i, k, me) for i, k in changes]
        )
        self._pruning.wrote(conn, len(changes))

    def _follow(self, conn: sqlite3.Connection) -> None:
        """The log's rows after the last this index reflects, applied in memory (other processes wrote their keyword
        rows; this one's own changes are in memory already). Called with the index lock held."""
        rows = conn.execute(
            "SELECT seq, memory_id, key, writer FROM index_log WHERE seq > ? ORDER BY seq", (self._log_seen,)
        ).fetchall()
        if not rows:
            return
        if self._records is None:  # an index alone: nothing to read other processes' memories from
            self._log_seen = rows[-1][0]
            return
        if change_log.missed(conn, "index_log", self._log_seen, rows[0][0]):
            self._load(self._records.scan(), self.dimension)
            return
        me = self._me
        latest: dict[str, tuple[int | None, bool]] = {}  # memory id -> its last key (None: removed), and whose
        for _seq, memory_id, key, writer in rows:
            if memory_id == change_log.EVERYTHING:
                latest.clear()
                if writer != me:
                    self._reset()
                    self._removed = True
                continue
            latest[memory_id] = (key, writer == me)
        self._log_seen = rows[-1][0]
        foreign = {memory_id: key for memory_id, (key, own) in latest.items() if not own}
        self._apply_remove([memory_id for memory_id, key in foreign.items() if key is None])
        for memory_id in foreign:
            self._orphans.pop(memory_id, None)
        wanted = {memory_id: key for memory_id, key in foreign.items() if key is not None}
        if wanted:
            records, vectors = self._records.records(list(wanted))
            # A memory whose record is gone again is taken out by a later row of the log, or by this process.
            self._orphans.update((i, wanted[i]) for i in wanted.keys() - {r.id for r in records})
            keys = [wanted[r.id] for r in records]
            replaced = [key for r in records if (key := self._keys.get(r.id)) is not None]
            self._keys.update((r.id, wanted[r.id]) for r in records)
            self._next_key = max([self._next_key, *(key + 1 for key in keys)])
            if records:
                self._apply_upsert(records, vectors, keys, replaced)
        # The generation the index reflects stays that of its own last write: a record another process wrote may
        # not have its index row yet, so a snapshot written now would be used without it (close() writes none).

    def purge(self) -> None:
        """The tokens of the rows deleted since the last purge taken out of the keyword table's segments: nothing
        to do with `secure-delete` (a delete took them out); else one `optimize` (every segment merged into one
        without them). Called once per delete operation, however many rows it removed. Then the file's WAL is
        checkpointed and truncated (its older page images hold the removed rows; the record store sharing the file
        finds it empty when its own purge follows)."""
        with self._lock:
            if not self._removed:
                return
            if not self.secure_delete:
                with self._db.write() as conn:
                    conn.execute("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")
            self._removed = False
        self._db.checkpoint()

    def count(self) -> int:
        self.refresh()
        return len(self._keys)

    def _note_generation(self) -> None:
        """The memories' generation this index reflects: the file's now, after a write of the index (the records it
        indexed were written before it). The snapshot carries it (mnemo.adapters.sqlite.index_snapshot)."""
        if self._snapshot is not None:
            self._seen = snapshot_files.generation_of(self._db)

    def _add_rows(self, records: Sequence[MemoryRecord], vectors: Vectors, keys: Sequence[int]) -> None:
        codes, scales = int8_vectors.quantize(vectors)
        self._exact_writes += 1
        exact = np.asarray(vectors, dtype=np.float32)
        if self._vector_source is None or len(self._exact) + len(records) <= EXACT_CACHED:
            self._exact.update((r.id, exact[at]) for at, r in enumerate(records))
        else:  # the cache is full: these rows' vectors are read from the source when needed
            for record in records:
                self._exact.pop(record.id, None)
        if keys:
            self._ensure_slots(max(keys))
        keep_documents = self._documents is None
        for record, key, code, scale in zip(records, keys, codes, scales, strict=True):
            user = record.scope.user_id
            part = self._partitions.get(user)
            if part is None:
                part = self._partitions[user] = _Partition(len(self._numbered), user, self.dimension)
                self._numbered.append(part)
            doc = record.index_document()
            hot = self._interner.hot(doc)
            row = part.append(record.id, key, hot, doc if keep_documents else None, code, scale)
            for facet in hot[FACETS_AT] or ():
                self._facet_keys.setdefault(facet, set()).add(key)
            self._slot_part[key] = part.number
            self._slot_row[key] = row

    def _detach(self, keys: Iterable[int]) -> None:
        """The rows of these keys taken out of their partitions (their keys stay assigned)."""
        for key in keys:
            number = int(self._slot_part[key])
            if number < 0:
                continue
            part = self._numbered[number]
            assert part is not None
            row = int(self._slot_row[key])
            for facet in part.hot[row][FACETS_AT] or ():
                self._facet_keys[facet].discard(key)
            moved = part.remove(row)
            if moved is not None:
                self._slot_row[moved] = row
            self._slot_part[key] = -1
            if not part:
                del self._partitions[part.user]
                self._numbered[number] = None

    def _ensure_slots(self, key: int) -> None:
        size = len(self._slot_part)
        if key < size:
            return
        while size <= key:
            size *= 2
        part = np.full(size, -1, dtype=np.int32)
        part[: len(self._slot_part)] = self._slot_part
        row = np.zeros(size, dtype=np.int32)
        row[: len(self._slot_row)] = self._slot_row
        self._slot_part, self._slot_row = part, row

    # ---- the approximate index ----------------------------------------------------------------------

    def _refresh_approximate(self) -> None:
        """Build the approximate index once the rows reach `ann_min_rows`; train it again when they have grown
        eightfold since it was trained (its lists would be too long); drop it when they fall below half."""
        rows = len(self._keys)
        if rows < self.tuning.ann_min_rows:
            if self._ann is not None and rows < self.tuning.ann_min_rows // 2:
                self._ann = None
            return
        if self._ann is not None and rows < 8 * max(self._ann.trained_on, 1):
            return
        rng = np.random.default_rng(5)
        rate = ApproximateIndex.sample_size(rows) / rows
        sample = [vectors[rng.random(len(vectors)) < rate] for _, vectors in self._chunks()]
        ann = ApproximateIndex.trained(np.concatenate(sample), rows, self.tuning.ann_nprobe)
        for keys, vectors in self._chunks():
            ann.add(keys, vectors)
        self._ann = ann

    def _chunks(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every row's key and (dequantized) vector, a chunk at a time."""
        keys: list[np.ndarray] = []
        vectors: list[np.ndarray] = []
        held = 0
        for part in self._numbered:
            if part is None:
                continue
            for start in range(0, len(part), ROW_CHUNK):
                end = min(len(part), start + ROW_CHUNK)
                keys.append(part.keys[start:end])
                vectors.append(part.vectors(start, end))
                held += end - start
                if held >= ROW_CHUNK:
                    yield np.concatenate(keys), np.concatenate(vectors)
                    keys, vectors, held = [], [], 0
        if held:
            yield np.concatenate(keys), np.concatenate(vectors)

    # ---- search -------------------------------------------------------------------------------------

    def search(self, vector: Vectors, query_text: str, expr: f.Expr, limit: int) -> list[IndexHit]:
        """The candidates are chosen on the int8 scores (RESCORE_MARGIN more than asked for, so that rounding does
        not cost a near tie), then scored again on their float32 vectors, read from the vector source: the semantic
        score is the exact cosine."""
        self.refresh()
        check = f.predicate(expr)
        if f.fields_of(expr) <= ONLY_HOT:
            check = _once_per_hot_key(check)
        users = f.pinned_values(expr, "user_id")
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        wide = limit + RESCORE_MARGIN if limit > 0 else 0
        with self._lock:
            scoped = [self._partitions[u] for u in users if u in self._partitions] if users is not None else None
            rows = sum(len(p) for p in scoped) if scoped is not None else len(self._keys)
            semantic = None
            facets = f.pinned_values(expr, FACETS_FIELD)
            faceted = None
            if facets is not None and self._faceted_count(facets) <= min(FACETED_MAX, rows // 4):
                # A facet filed on few of the rows searched: only its rows can pass; score those alone.
                faceted = self._faceted_keys(facets)
                semantic = self._best_of_keys(faceted, query, check, wide, scoped)
            elif facets is not None and scoped is not None and rows <= FACET_SCAN_MAX:
                # A facet filed on many rows, searched among a few (a user's): only those of them filed under it can
                # pass, found by their hot fields; the filter is checked on them alone, not on every row. (The keyword
                # search stays the user's: a list of rows would make its SQL new each time, prepared again.)
                semantic = self._best_of_keys(_faceted_rows(scoped, facets), query, check, wide, scoped)
            elif self._ann is not None and rows >= self.tuning.ann_min_rows and 4 * rows >= len(self._keys):
                # Broad: the approximate index's candidates (those under the facet first, when one is asked for).
                allowed = self._faceted_keys(facets) if facets is not None else None
                semantic = self._approximate_top(query, check, wide, scoped, allowed)
            if semantic is None:
                parts = scoped if scoped is not None else [p for p in self._numbered if p is not None]
                semantic = self._exact_top(parts, query, check, wide)
            narrow = users is not None and 4 * rows < len(self._keys)
        among = faceted if faceted is not None and len(faceted) <= AMONG_MAX else None
        keyword = self._keyword(query_text, users, check, limit, narrow, among)
        exact = self._exact_scores([i for i, _ in semantic] + [i for i, _ in keyword], query)
        ranked = sorted(((i, exact.get(i, score)) for i, score in semantic), key=lambda hit: -hit[1])[:limit]
        hits = {memory_id: IndexHit(memory_id, score, 0.0) for memory_id, score in ranked}
        with self._lock:  # taken once for the keyword hits, not once each: under load every search contends for it
            for memory_id, bm25 in keyword:
                if memory_id not in self._keys:  # removed since the keyword query ran
                    continue
                similarity = exact.get(memory_id)
                if similarity is None:
                    similarity = self._similarity(memory_id, query)
                hits[memory_id] = IndexHit(memory_id, similarity, bm25)
        return sorted(hits.values(), key=lambda h: (-h.semantic, -h.keyword))

    def _exact_scores(self, memory_ids: Sequence[str], query: np.ndarray) -> dict[str, float]:
        """The float32 cosine of the query with each of these memories (those the source still has)."""
        if not memory_ids:
            return {}
        unique = list(dict.fromkeys(memory_ids))
        with self._lock:
            found = {i: v for i in unique if (v := self._exact.get(i)) is not None}
            writes = self._exact_writes
        missing = [i for i in unique if i not in found]
        if missing and self._vector_source is not None:
            read = self._vector_source(missing)
            found.update(read)
            with self._lock:
                if writes == self._exact_writes and len(self._exact) + len(read) <= EXACT_CACHED:
                    self._exact.update(read)
        if not found:
            return {}
        names = list(found)
        # One array of all the rows at once (each row flattened by the reshape): np.stack of rows made one at a time
        # took four times as long, a tenth of a search's own CPU.
        matrix = np.array([found[i] for i in names], dtype=np.float32).reshape(len(names), -1)
        return dict(zip(names, (matrix @ query).tolist(), strict=True))

    def _exact_top(
        self, parts: Sequence[_Partition], query: np.ndarray, check: Any, limit: int
    ) -> list[tuple[str, float]]:
        scores = _scores_of(parts, query)
        if len(parts) == 1:
            return parts[0].top(query, check, limit, self._documents, scores[0])
        return _merged_top(parts, scores, query, check, limit, self._documents)

    def _approximate_top(
        self,
        query: np.ndarray,
        check: Any,
        limit: int,
        parts: Sequence[_Partition] | None,
        allowed: np.ndarray | None = None,
    ) -> list[tuple[str, float]] | None:
        """The best `limit` rows passing `check` among the approximate index's nearest candidates (only those among
        the `allowed` keys, when given), scored on their int8 codes; None when too few of the candidates pass (a
        selective filter): the caller scans exactly."""
        assert self._ann is not None
        if limit <= 0:
            return []
        count = max(limit * 4, 64)
        while True:
            keys, similarities = self._ann.search(query, count)
            if allowed is not None:
                kept = np.isin(keys, allowed)
                keys, similarities = keys[kept], similarities[kept]
            # The index's own scores: gathering the candidates' codes here would read a page of them per candidate.
            found = self._best_of_keys(keys, query, check, limit, parts, similarities)
            if len(found) == limit:
                return found
            if count >= self.tuning.ann_max_candidates:
                return None
            count *= 4

    def _best_of_keys(
        self,
        keys: np.ndarray,
        query: np.ndarray,
        check: Any,
        limit: int,
        parts: Sequence[_Partition] | None,
        given: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """The best `limit` of these rows (those of `parts`, when given) that pass `check`, scored on their codes
        (or `given` the keys' scores)."""
        numbers = self._slot_part[keys]
        if parts is None:
            live = numbers >= 0
        elif len(parts) == 1:  # a search of one user: one comparison (np.isin costs ~10 us, even on a few keys)
            live = numbers == parts[0].number
        else:
            live = np.isin(numbers, [p.number for p in parts])
        keys, numbers = keys[live], numbers[live]
        if not len(keys) or limit <= 0:
            return []
        rows_at = self._slot_row[keys]
        scores = np.empty(len(keys), dtype=np.float32)
        numbered = np.unique(numbers).tolist()
        if given is not None:
            scores[:] = given[live]
        elif len(numbered) <= GATHERS_PER_PARTITION:  # one gather per partition
            for number in numbered:
                mine = np.flatnonzero(numbers == number)
                part = self._numbered[number]
                assert part is not None
                chosen = rows_at[mine]
                scores[mine] = int8_vectors.scores(part.codes[chosen], part.scales[chosen], query)
        else:  # rows of many partitions: one row at a time
            held = [(self._numbered[n], r) for n, r in zip(numbers.tolist(), rows_at.tolist(), strict=True)]
            codes = np.stack([p.codes[r] for p, r in held if p is not None])
            scales = np.asarray([p.scales[r] for p, r in held if p is not None])
            scores[:] = int8_vectors.scores(codes, scales, query)
        rows = rows_at.tolist()
        owners = [self._numbered[n] for n in numbers.tolist()]
        found: list[tuple[str, float]] = []
        for at in np.argsort(-scores, kind="stable").tolist():
            part, row = owners[at], rows[at]
            assert part is not None
            if check(part.doc(row, self._documents)):
                found.append((part.ids[row], float(scores[at])))
                if len(found) == limit:
                    break
        return found

    def _faceted_count(self, facets: set[str]) -> int:
        """How many rows are filed under these facets (at most: a row under two counts twice)."""
        return sum(len(self._facet_keys.get(facet, ())) for facet in facets)

    def _faceted_keys(self, facets: set[str]) -> np.ndarray:
        """The keys of the rows filed under any of these facets."""
        keys: set[int] = set()
        for facet in facets:
            keys |= self._facet_keys.get(facet, set())
        return np.fromiter(keys, dtype=np.int64, count=len(keys))

    def _similarity(self, memory_id: str, query: Vectors) -> float:
        key = self._keys[memory_id]
        part = self._numbered[int(self._slot_part[key])]
        assert part is not None
        row = int(self._slot_row[key])
        return float(part.codes[row].astype(np.float32) @ query * part.scales[row])

    def _keyword(
        self, text: str, users: set[str] | None, check: Any, limit: int, narrow: bool, keys: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """The best `limit` keyword matches passing `check`; among `keys` only, when given (a few rows: a facet's)."""
        if limit <= 0 or (keys is not None and not len(keys)):
            return []
        query = _keyword_query(self._uncommon(keywords(text)), users, narrow)
        if query is None:
            return []
        if keys is not None:
            query = _among(query, keys)
        sql, params = query
        fetch = limit * 4
        while True:
            # The SQL runs outside the index lock (this thread's own reader connection), so that concurrent
            # searches overlap; only the checks against the in-memory documents hold it.
            rows = self._db.read().execute(sql, [*params, fetch]).fetchall()
            found: list[tuple[str, float]] = []
            with self._lock:
                for memory_id, score in rows:
                    if memory_id in self._keys and check(self._doc(memory_id)):
                        found.append((memory_id, float(score)))
                        if len(found) == limit:
                            return found
            if len(rows) < fetch:
                return found
            fetch *= 8

    def _uncommon(self, terms: list[str]) -> list[str]:
        """The terms, but those found in more than `keyword_term_cap` memories when the index holds more than that:
        their rows cost a broad keyword search (unscoped, or over a user holding most rows) about half a microsecond
        each to rank, and even a search narrowed to one user reads their whole list of rows (1.6 ms for a word in 83k
        of a million memories); their BM25 weight is low (a word in 2% of a million memories: IDF 3.9, against 13.8
        for a word found once). Each word's count is kept until the index has grown or shrunk by a tenth."""
        cap = self.tuning.keyword_term_cap
        size = len(self._keys)
        if size <= cap or not terms:
            return terms
        kept = []
        for term in terms:
            known = self._term_counts.get(term)
            if known is None or abs(known[1] - size) * 10 > size:
                match = "{text dated} : " + _quoted(term)
                count = self._db.read().execute(_CAPPED_COUNT, (match, cap + 1)).fetchone()[0]
                if len(self._term_counts) >= TERM_COUNTS_KEPT:
                    self._term_counts.clear()
                known = self._term_counts[term] = (int(count), size)
            if known[0] <= cap:
                kept.append(term)
        return kept

    def _doc(self, memory_id: str) -> Doc:
        key = self._keys[memory_id]
        part = self._numbered[int(self._slot_part[key])]
        assert part is not None
        return part.doc(int(self._slot_row[key]), self._documents)


def _keyword_row(key: int, record: MemoryRecord) -> tuple[Any, ...]:
    return (key, record.text, record.id, record.scope.user_id, date_words(record.created_at))


def _among(query: tuple[str, list[Any]], keys: np.ndarray) -> tuple[str, list[Any]]:
    """The keyword query kept to these rows (integers: written into the SQL as they are)."""
    sql, params = query
    where, order = sql.split(" ORDER BY ", 1)
    listed = ", ".join(str(int(key)) for key in keys)
    return f"{where} AND rowid IN ({listed}) ORDER BY {order}", params


def _keyword_query(terms: list[str], users: set[str] | None, narrow: bool) -> tuple[str, list[Any]] | None:
    """The FTS5 query of a keyword search, best first, and its parameters but the row limit (None: nothing can
    match). When the users hold a small share of the rows (`narrow`), the match is narrowed to rows holding the
    users' words and then to the users exactly. Otherwise both cost more than they save (one user holding all of
    100k rows: 17 ms narrowed, 28 ms with the exact test in SQL, 6 ms without either): the caller's check keeps the
    users' rows, and its fetch grows until enough passed."""
    if not terms or (users is not None and not users):
        return None
    match = "{text dated} : (" + " OR ".join(_quoted(t) for t in terms) + ")"
    sql = f"SELECT memory_id, -{_BM25} FROM memory_fts WHERE memory_fts MATCH ?"
    params: list[Any] = []
    if users is not None and narrow:
        if all(any(c.isalnum() for c in u) for u in users):
            match += " AND user_id : (" + " OR ".join(_quoted(u) for u in sorted(users)) + ")"
        sql += f" AND user_id IN ({', '.join('?' * len(users))})"
        params.extend(sorted(users))
    return f"{sql} ORDER BY {_BM25} LIMIT ?", [match, *params]


PARALLEL_ROWS = 32_768  # from this many rows on, one search's cosines are computed on every core at once
_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _scoring_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, _cores() - 1), thread_name_prefix="mnemo-scores")
        return _pool


def _scores_of(parts: Sequence[_Partition], query: Vectors) -> list[np.ndarray]:
    """The cosine of the query with every row of the partitions. A scan this large is bound by memory bandwidth:
    above PARALLEL_ROWS rows it is cut into one slice per core, computed at once (NumPy releases the GIL)."""
    total = sum(len(part) for part in parts)
    workers = _cores() if total >= PARALLEL_ROWS else 1  # the affinity is a system call: asked only when it matters
    if workers < 2:
        return [part.scores(query) for part in parts]
    out = [np.empty(len(part), dtype=np.float32) for part in parts]
    share = -(-total // workers)
    groups: list[list[tuple[int, int, int]]] = [[]]
    room = share
    for number, part in enumerate(parts):
        start = 0
        while start < len(part):
            if room == 0:
                groups.append([])
                room = share
            end = min(len(part), start + room)
            groups[-1].append((number, start, end))
            room -= end - start
            start = end

    def compute(group: list[tuple[int, int, int]]) -> None:
        for number, start, end in group:
            part = parts[number]
            for begin in range(start, end, ROW_CHUNK):
                stop = min(end, begin + ROW_CHUNK)
                int8_vectors.scores(part.codes[begin:stop], part.scales[begin:stop], query, out=out[number][begin:stop])

    pending = [_scoring_pool().submit(compute, group) for group in groups[1:]]
    compute(groups[0])
    for future in pending:
        future.result()
    return out


def _merged_top(
    parts: Sequence[_Partition],
    all_scores: Sequence[np.ndarray],
    query: Vectors,
    check: Any,
    limit: int,
    source: DocumentSource | None,
) -> list[tuple[str, float]]:
    """The best `limit` rows over many partitions that pass `check`, exactly as checking every partition's own
    best would give, but checking rows in global score order: each partition offers its best `limit` rows by score
    alone, and only when a filter rejects offered rows of a partition that may hold more is the slow way taken."""
    if limit <= 0:
        return []
    offered_scores: list[np.ndarray] = []
    offered_rows: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    for number, scores in enumerate(all_scores):
        rows = np.argpartition(-scores, limit - 1)[:limit] if len(scores) > limit else np.arange(len(scores))
        offered_scores.append(scores[rows])
        offered_rows.append(rows)
        owners.append(np.full(len(rows), number))
    if not offered_scores:
        return []
    scores, rows, owner = np.concatenate(offered_scores), np.concatenate(offered_rows), np.concatenate(owners)
    found: list[tuple[str, float]] = []
    rejected: set[int] = set()
    for i in np.argsort(-scores, kind="stable"):
        part = parts[owner[i]]
        if check(part.doc(int(rows[i]), source)):
            found.append((part.ids[rows[i]], float(scores[i])))
            if len(found) == limit:
                break
        elif len(part) > limit:
            rejected.add(int(owner[i]))
    if not rejected:
        return found
    # A partition lost offered rows to the filter and has rows it did not offer: check it the thorough way.
    exact: list[tuple[str, float]] = []
    for part, scores in zip(parts, all_scores, strict=True):
        exact.extend(part.top(query, check, limit, source, scores))
    exact.sort(key=lambda hit: -hit[1])
    return exact[:limit]


def secure_delete_supported() -> bool:
    """Whether this SQLite's FTS5 has the `secure-delete` option (3.42 or later)."""
    version = tuple(int(part) for part in sqlite3.sqlite_version.split(".")[:3])
    return version >= SECURE_DELETE_SINCE


def _quoted(text: str) -> str:
    """An FTS5 string: matched as the phrase of its words, with no query syntax."""
    return '"' + text.replace('"', '""') + '"'


def _args(create: str) -> str:
    """The argument list of a CREATE VIRTUAL TABLE statement, whitespace normalised."""
    inner = create[create.find("(") + 1 : create.rfind(")")]
    return " ".join(inner.split())
