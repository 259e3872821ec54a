"""What other processes changed in one SQLite file: how several processes serving one data directory keep what
each derives from the file in memory true.

`mnemo serve --workers N` runs N processes on one data directory. Each holds state derived from the file: the
search index's vectors, keys and hot fields (mnemo.adapters.sqlite.memory_index) and the record cache
(mnemo.adapters.sqlite.memory_store). Two logs in the file say what changed, in commit order:

- `index_log`: every change of the index (a memory indexed under a key, taken out, or every memory taken out),
  written by the index in the same transaction as its keyword-table rows, with the token of the index that wrote
  it. Keys come from one counter in the file (`index_keys`), so two processes never give two memories one key.
- `record_log`: every update or delete of a memory's record, written by triggers in the record's own transaction,
  whoever writes (a sibling's redaction after a delete, a reindex, a tool).

Before a read that uses its derived state a process asks SQLite whether any connection committed since it last
looked (`Watch.moved`: `PRAGMA data_version` on a connection of its own, a few microseconds, no file read) and only
then reads the logs' new rows; a write of the index first applies, inside its own transaction (where no other
process can commit), the index changes it has not seen. Each log keeps its newest LOG_KEPT rows; a process that
fell further behind (it saw no request while that many changes were made) rebuilds what it derives from the records.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading

from mnemo.adapters.sqlite.database import Database

LOG_KEPT = 100_000  # rows each log keeps
PRUNE_EVERY = 1_024  # a process prunes a log after this many of its own writes to it
EVERYTHING = "*"  # the memory id of an index_log row that says every memory was taken out (a reset)

INDEX_LOG_SCHEMA = """
CREATE TABLE IF NOT EXISTS index_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, memory_id TEXT NOT NULL, key INTEGER, writer TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS index_keys (id INTEGER PRIMARY KEY CHECK (id = 0), next_key INTEGER NOT NULL);
INSERT OR IGNORE INTO index_keys (id, next_key) VALUES (0, 1);
"""
RECORD_LOG_SCHEMA = """
CREATE TABLE IF NOT EXISTS record_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, memory_id TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS memories_logged_update AFTER UPDATE ON memories
BEGIN INSERT INTO record_log (memory_id) VALUES (OLD.id); END;
CREATE TRIGGER IF NOT EXISTS memories_logged_delete AFTER DELETE ON memories
BEGIN INSERT INTO record_log (memory_id) VALUES (OLD.id); END;
"""


def writer_token() -> str:
    """A token for one index's rows in the index log: each index (each process, or each of two opened on one file
    in one process) skips its own rows, which it applied when it wrote them."""
    return f"{os.getpid()}-{secrets.token_hex(6)}"


class Watch:
    """Whether the file changed since the last look: `PRAGMA data_version` on a connection of its own."""

    def __init__(self, db: Database) -> None:
        self._conn = db.watcher()
        self._lock = threading.Lock()
        self._version: int | None = None

    def moved(self) -> bool:
        """True on the first call, then when any other connection committed since the previous call."""
        with self._lock:
            try:
                version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
            except sqlite3.ProgrammingError:  # the file is closed: nothing to catch up with
                return False
            moved, self._version = version != self._version, version
            return moved


class SettingWatch:
    """Whether a setting (a row of the `settings` table) was written since the last look, by any process: cheap
    when nothing was committed (`Watch`), one indexed read when something was."""

    def __init__(self, db: Database, key: str) -> None:
        self._db = db
        self._key = key
        self._watch = Watch(db)
        self._stamp = self._read()
        self._watch.moved()  # from now on

    def changed(self) -> bool:
        if not self._watch.moved():
            return False
        stamp = self._read()
        changed, self._stamp = stamp != self._stamp, stamp
        return changed

    def _read(self) -> str | None:
        row = self._db.read().execute("SELECT updated_at, value FROM settings WHERE key = ?", (self._key,)).fetchone()
        return f"{row[0]} {hash(row[1])}" if row else None


def last_seq(conn: sqlite3.Connection, table: str) -> int:
    row = conn.execute(f"SELECT coalesce(max(seq), 0) FROM {table}").fetchone()
    return int(row[0])


def missed(conn: sqlite3.Connection, table: str, seen: int, first_new: int) -> bool:
    """Whether rows after `seen` were pruned before this process read them (the first row it reads is not the next)."""
    if first_new == seen + 1:
        return False
    row = conn.execute(f"SELECT min(seq) FROM {table}").fetchone()
    return row[0] is not None and int(row[0]) > seen + 1


class Pruning:
    """A log pruned now and then: after PRUNE_EVERY rows written to it by this process."""

    def __init__(self, table: str) -> None:
        self._table = table
        self._written = 0

    def wrote(self, conn: sqlite3.Connection, rows: int) -> None:
        """`rows` more were written to the log in this transaction; prune it once enough were."""
        self._written += rows
        if self._written >= PRUNE_EVERY:
            self._written = 0
            prune(conn, self._table)


def prune(conn: sqlite3.Connection, table: str) -> None:
    """The log's rows but its newest LOG_KEPT deleted."""
    conn.execute(f"DELETE FROM {table} WHERE seq <= (SELECT max(seq) FROM {table}) - ?", (LOG_KEPT,))
