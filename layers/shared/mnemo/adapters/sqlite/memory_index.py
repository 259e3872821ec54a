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
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from mnemo.adapters.sqlite.database import Database
from mnemo.domain import filters as f
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
_INSERT = "INSERT INTO memory_fts (rowid, text, memory_id, user_id, dated) VALUES (?, ?, ?, ?, ?)"
# FTS5's `secure-delete` option (SQLite 3.42+): a delete takes the row's tokens out of the segments at once.
SECURE_DELETE_SINCE = (3, 42, 0)

Doc = Mapping[str, Any]


class _Partition:
    """The rows of one user (or of memories with no user): a growable matrix plus their documents."""

    def __init__(self, dimension: int) -> None:
        self.matrix = np.zeros((16, dimension), dtype=np.float32)
        self.ids: list[str] = []
        self.docs: list[Doc] = []

    def __len__(self) -> int:
        return len(self.ids)

    def append(self, memory_id: str, doc: Doc, vector: Vectors) -> int:
        row = len(self.ids)
        if row == len(self.matrix):
            grown = np.zeros((row * 2, self.matrix.shape[1]), dtype=np.float32)
            grown[:row] = self.matrix
            self.matrix = grown
        self.matrix[row] = vector
        self.ids.append(memory_id)
        self.docs.append(doc)
        return row

    def remove(self, row: int) -> str | None:
        """Remove a row by moving the last row into its place; returns the id that moved, if any."""
        last = len(self.ids) - 1
        moved = None
        if row != last:
            self.matrix[row] = self.matrix[last]
            self.ids[row] = self.ids[last]
            self.docs[row] = self.docs[last]
            moved = self.ids[row]
        self.ids.pop()
        self.docs.pop()
        return moved

    def scores(self, query: Vectors) -> np.ndarray:
        scores: np.ndarray = self.matrix[: len(self.ids)] @ query
        return scores

    def top(self, query: Vectors, check: Any, limit: int, scores: np.ndarray | None = None) -> list[tuple[str, float]]:
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
                if check(self.docs[row]):
                    found.append((self.ids[row], float(scores[row])))
                    if len(found) == limit:
                        return found
            if window >= count:
                return found
            window = count


class LocalMemoryIndex:
    def __init__(self, db: Database, dimension: int) -> None:
        self._db = db
        self.dimension = dimension
        self._lock = threading.RLock()
        self._partitions: dict[str | None, _Partition] = {}
        self._where: dict[str, tuple[str | None, int]] = {}
        # memory id -> its row in the keyword table: memory_id is not an indexed column of FTS5, so rows are
        # deleted by rowid, never by a scan of the table.
        self._fts_rows: dict[str, int] = {}
        self._next_fts_row = 1
        existing = db.read().execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").fetchone()
        if existing is not None and _args(existing[0]) != _args(SCHEMA):
            # An older layout: drop it; load() refills the keyword table from the records.
            db.executescript("DROP TABLE memory_fts;")
        db.executescript(SCHEMA)
        self.secure_delete = secure_delete_supported()
        if self.secure_delete:
            with db.write() as conn:
                conn.execute("INSERT INTO memory_fts (memory_fts, rank) VALUES ('secure-delete', 1)")
        self._removed = False  # rows deleted (or replaced) since the last purge

    # ---- loading ------------------------------------------------------------------------------------

    def load(self, batches: Iterable[tuple[list[MemoryRecord], Vectors]], dimension: int | None = None) -> None:
        """Fill the vectors from the record store; rebuild the keyword table if it does not match."""
        with self._lock:
            self.dimension = dimension or self.dimension
            self._partitions.clear()
            self._where.clear()
            for records, vectors in batches:
                self._add_vectors(records, vectors)
            rows = self._db.read().execute("SELECT rowid, memory_id FROM memory_fts").fetchall()
            self._fts_rows = {memory_id: rowid for rowid, memory_id in rows}
            self._next_fts_row = 1 + max((rowid for rowid, _ in rows), default=0)
            if len(rows) != len(self._fts_rows) or self._fts_rows.keys() != self._where.keys():
                self._rebuild_keywords()

    def _rebuild_keywords(self) -> None:
        docs = [
            (memory_id, doc)
            for part in self._partitions.values()
            for memory_id, doc in zip(part.ids, part.docs, strict=True)
        ]
        self._fts_rows = {memory_id: row for row, (memory_id, _) in enumerate(docs, start=1)}
        self._next_fts_row = len(docs) + 1
        with self._db.write() as conn:
            conn.execute("DELETE FROM memory_fts")
            conn.executemany(
                _INSERT,
                [
                    (self._fts_rows[memory_id], doc["memory"], memory_id, doc["user_id"], date_words(doc["created_at"]))
                    for memory_id, doc in docs
                ],
            )

    # ---- writes -------------------------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        if not records:
            return
        with self._lock:
            self._remove_vectors([r.id for r in records])
            if not self._where:
                # An empty index takes the width it is given: after clear() the embedder may have changed.
                self.dimension = int(np.asarray(vectors).shape[1])
            self._add_vectors(records, vectors)
            replaced = [(self._fts_rows[r.id],) for r in records if r.id in self._fts_rows]
            self._removed = self._removed or bool(replaced)
            rows = [self._fts_row(r.id) for r in records]
            with self._db.write() as conn:
                conn.executemany("DELETE FROM memory_fts WHERE rowid = ?", replaced)
                conn.executemany(
                    _INSERT,
                    [
                        (row, r.text, r.id, r.scope.user_id, date_words(r.created_at))
                        for row, r in zip(rows, records, strict=True)
                    ],
                )

    def remove(self, memory_ids: Sequence[str]) -> None:
        with self._lock:
            self._remove_vectors(memory_ids)
            gone = [(row,) for i in memory_ids if (row := self._fts_rows.pop(i, None)) is not None]
            self._removed = self._removed or bool(gone)
            with self._db.write() as conn:
                conn.executemany("DELETE FROM memory_fts WHERE rowid = ?", gone)

    def clear(self) -> None:
        with self._lock:
            self._partitions.clear()
            self._where.clear()
            self._fts_rows.clear()
            self._next_fts_row = 1
            self._removed = True
            with self._db.write() as conn:
                conn.execute("DELETE FROM memory_fts")

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

    def _fts_row(self, memory_id: str) -> int:
        """The keyword-table row of a memory: its current one, or a new one."""
        row = self._fts_rows.get(memory_id)
        if row is None:
            row = self._fts_rows[memory_id] = self._next_fts_row
            self._next_fts_row += 1
        return row

    def count(self) -> int:
        return len(self._where)

    def _add_vectors(self, records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        for record, vector in zip(records, vectors, strict=True):
            key = record.scope.user_id
            part = self._partitions.get(key)
            if part is None:
                part = self._partitions[key] = _Partition(self.dimension)
            row = part.append(record.id, record.index_document(), vector)
            self._where[record.id] = (key, row)

    def _remove_vectors(self, memory_ids: Iterable[str]) -> None:
        for memory_id in memory_ids:
            place = self._where.pop(memory_id, None)
            if place is None:
                continue
            part = self._partitions[place[0]]
            moved = part.remove(place[1])
            if moved is not None:
                self._where[moved] = place
            if not part:
                del self._partitions[place[0]]

    # ---- search -------------------------------------------------------------------------------------

    def search(self, vector: Vectors, query_text: str, expr: f.Expr, limit: int) -> list[IndexHit]:
        check = f.predicate(expr)
        users = f.pinned_values(expr, "user_id")
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        with self._lock:
            parts = (
                [self._partitions[u] for u in users if u in self._partitions]
                if users is not None
                else list(self._partitions.values())
            )
            scores = _scores_of(parts, query)
            semantic = (
                parts[0].top(query, check, limit, scores[0])
                if len(parts) == 1
                else _merged_top(parts, scores, query, check, limit)
            )
            narrow = users is not None and 4 * sum(len(p) for p in parts) < len(self._where)
        hits = {memory_id: IndexHit(memory_id, score, 0.0) for memory_id, score in semantic}
        for memory_id, bm25 in self._keyword(query_text, users, check, limit, narrow):
            with self._lock:
                if memory_id not in self._where:  # removed since the keyword query ran
                    continue
                hits[memory_id] = IndexHit(memory_id, self._similarity(memory_id, query), bm25)
        return sorted(hits.values(), key=lambda h: (-h.semantic, -h.keyword))

    def _similarity(self, memory_id: str, query: Vectors) -> float:
        key, row = self._where[memory_id]
        return float(self._partitions[key].matrix[row] @ query)

    def _keyword(
        self, text: str, users: set[str] | None, check: Any, limit: int, narrow: bool
    ) -> list[tuple[str, float]]:
        query = _keyword_query(text, users, narrow)
        if query is None or limit <= 0:
            return []
        sql, params = query
        fetch = limit * 4
        while True:
            # The SQL runs outside the index lock (this thread's own reader connection), so that concurrent
            # searches overlap; only the checks against the in-memory documents hold it.
            rows = self._db.read().execute(sql, [*params, fetch]).fetchall()
            found: list[tuple[str, float]] = []
            with self._lock:
                for memory_id, score in rows:
                    if memory_id in self._where and check(self._doc(memory_id)):
                        found.append((memory_id, float(score)))
                        if len(found) == limit:
                            return found
            if len(rows) < fetch:
                return found
            fetch *= 8

    def _doc(self, memory_id: str) -> Doc:
        key, row = self._where[memory_id]
        return self._partitions[key].docs[row]


def _keyword_query(text: str, users: set[str] | None, narrow: bool) -> tuple[str, list[Any]] | None:
    """The FTS5 query of a keyword search, best first, and its parameters but the row limit (None: nothing can
    match). When the users hold a small share of the rows (`narrow`), the match is narrowed to rows holding the
    users' words and then to the users exactly. Otherwise both cost more than they save (one user holding all of
    100k rows: 17 ms narrowed, 28 ms with the exact test in SQL, 6 ms without either): the caller's check keeps the
    users' rows, and its fetch grows until enough passed."""
    terms = keywords(text)
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
    workers = _cores()
    if total < PARALLEL_ROWS or workers < 2:
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
            np.matmul(parts[number].matrix[start:end], query, out=out[number][start:end])

    pending = [_scoring_pool().submit(compute, group) for group in groups[1:]]
    compute(groups[0])
    for future in pending:
        future.result()
    return out


def _merged_top(
    parts: Sequence[_Partition], all_scores: Sequence[np.ndarray], query: Vectors, check: Any, limit: int
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
        if check(part.docs[rows[i]]):
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
        exact.extend(part.top(query, check, limit, scores))
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
