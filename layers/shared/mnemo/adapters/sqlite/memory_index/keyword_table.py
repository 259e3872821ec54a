"""The keyword table (SQLite FTS5, in the records' file): its rows, the words a search leaves out, and erasure.

Each memory's row is its key (.local_index): rows are written and deleted by rowid, never by a scan of the table
(memory_id is not an indexed column of FTS5).

A deleted memory's words must leave the file. FTS5 keeps the tokens of a deleted row in its index segments (only
a delete marker is added) until the segments holding them are merged. So, after a delete: with SQLite 3.42 or
later, the table's `secure-delete` option is on and a delete removes the tokens at once; with an older SQLite,
`optimize` merges every segment into one, without the deleted rows (its cost grows with the table: see
bench/erasure.py). The rows' content (the `_content` shadow table) goes with the row, zeroed by `secure_delete`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index.keyword_query import (
    CAPPED_COUNT,
    SCHEMA,
    KeywordQuery,
    among,
    keyword_query,
    table_args,
    term_match,
)
from mnemo.domain.memory import MemoryRecord
from mnemo.language import KeywordWords

TERM_COUNTS_KEPT = 10_000  # terms whose counts are remembered (forgotten all at once past this)
INSERT = "INSERT INTO memory_fts (rowid, text, memory_id, user_id, dated) VALUES (?, ?, ?, ?, ?)"
DELETE = "DELETE FROM memory_fts WHERE rowid = ?"
# FTS5's `secure-delete` option (SQLite 3.42+): a delete takes the row's tokens out of the segments at once.
SECURE_DELETE_SINCE = (3, 42, 0)


def secure_delete_supported() -> bool:
    """Whether this SQLite's FTS5 has the `secure-delete` option (3.42 or later)."""
    version = tuple(int(part) for part in sqlite3.sqlite_version.split(".")[:3])
    return version >= SECURE_DELETE_SINCE


class KeywordTable:
    """The `memory_fts` table of one file: made (or remade, when its layout changed) on construction; `load()` of the
    index refills what it lacks. Writes run in the caller's write transaction."""

    def __init__(self, db: Database, term_cap: int, *, words: KeywordWords) -> None:
        """`words`: what reads a text's keywords and writes a day in words (a language pack)."""
        self._db = db
        self._words = words
        self._term_cap = term_cap
        self._term_counts: dict[str, tuple[int, int]] = {}  # term -> (memories holding it, capped; index size then)
        existing = db.read().execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").fetchone()
        if existing is not None and table_args(existing[0]) != table_args(SCHEMA):
            # An older layout: drop it; load() refills the keyword table from the records.
            db.executescript("DROP TABLE memory_fts;")
        db.executescript(SCHEMA)
        self.secure_delete = secure_delete_supported()
        if self.secure_delete:
            with db.write() as conn:
                conn.execute("INSERT INTO memory_fts (memory_fts, rank) VALUES ('secure-delete', 1)")

    # ---- rows ---------------------------------------------------------------------------------------

    def insert(self, conn: sqlite3.Connection, rows: Iterable[tuple[int, MemoryRecord]]) -> None:
        """The rows of these memories, each under its key."""
        conn.executemany(INSERT, [self._row(key, record) for key, record in rows])

    def delete(self, conn: sqlite3.Connection, keys: Iterable[int]) -> None:
        conn.executemany(DELETE, [(key,) for key in keys])

    def clear(self, conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM memory_fts")

    def listed(self) -> tuple[dict[str, int], list[int], int]:
        """Each memory's row (the first, when it has several), the rows that repeat a memory, and the last rowid
        (0 when the table is empty)."""
        rows: dict[str, int] = {}
        repeated: list[int] = []
        last = 0
        for rowid, memory_id in self._db.read().execute("SELECT rowid, memory_id FROM memory_fts"):
            if memory_id in rows:
                repeated.append(rowid)
            else:
                rows[memory_id] = rowid
            last = max(last, rowid)
        return rows, repeated, last

    def optimize(self) -> None:
        """Every segment merged into one, without the deleted rows' tokens (for an SQLite without secure-delete)."""
        with self._db.write() as conn:
            conn.execute("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")

    # ---- search -------------------------------------------------------------------------------------

    def query(
        self, text: str, users: set[str] | None, narrow: bool, keys: np.ndarray | None, size: int
    ) -> KeywordQuery | None:
        """The query of a keyword search for `text` (among the `keys` rows only, when given) in an index of `size`
        memories; None when no word of it can match."""
        query = keyword_query(self._uncommon(self._words.keywords(text), size), users, narrow)
        if query is not None and keys is not None:
            query = among(query, keys)
        return query

    def ranked(self, query: KeywordQuery, limit: int) -> Iterator[list[tuple[str, float]]]:
        """The query's matches, best first: `limit` × 4 of them, then eight times as many at each next step, until
        the table has no more (the caller stops once enough of them passed its filter). Runs outside the index lock
        (this thread's own reader connection), so that concurrent searches overlap."""
        sql, params = query
        fetch = limit * 4
        while True:
            rows: list[tuple[str, float]] = self._db.read().execute(sql, [*params, fetch]).fetchall()
            yield rows
            if len(rows) < fetch:
                return
            fetch *= 8

    def _row(self, key: int, record: MemoryRecord) -> Sequence[Any]:
        return (key, record.text, record.id, record.scope.user_id, self._words.date_words(record.created_at))

    def _uncommon(self, terms: list[str], size: int) -> list[str]:
        """The terms, but those found in more than the term cap's memories when the index holds more than that:
        every row of such a word costs a broad keyword search to rank, and even a search narrowed to one user reads
        its whole list of rows, for a low BM25 weight (bench/memory_index.md). Each word's count is kept until the
        index has grown or shrunk by a tenth."""
        cap = self._term_cap
        if size <= cap or not terms:
            return terms
        kept = []
        for term in terms:
            known = self._term_counts.get(term)
            if known is None or abs(known[1] - size) * 10 > size:
                count = self._db.read().execute(CAPPED_COUNT, (term_match(term), cap + 1)).fetchone()[0]
                if len(self._term_counts) >= TERM_COUNTS_KEPT:
                    self._term_counts.clear()
                known = self._term_counts[term] = (int(count), size)
            if known[0] <= cap:
                kept.append(term)
        return kept
