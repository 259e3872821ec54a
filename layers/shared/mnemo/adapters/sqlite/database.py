"""One SQLite file in WAL mode: a single writer behind a lock, one reader connection per thread.

Writes are serialised in-process, so concurrent requests never see "database is locked"; readers never
block the writer and see only committed data.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class Database:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._write_lock = threading.RLock()
        self._writer = self._connect()
        self._writer.execute("PRAGMA journal_mode=WAL")
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._depth = 0

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30.0)
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A transaction on the writer connection; nested calls join the outer transaction."""
        with self._write_lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._writer
                finally:
                    self._depth -= 1
                return
            self._writer.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._writer
            except BaseException:
                self._writer.execute("ROLLBACK")
                raise
            else:
                self._writer.execute("COMMIT")
            finally:
                self._depth = 0

    def read(self) -> sqlite3.Connection:
        """This thread's reader connection (the writer's, inside a write on this thread)."""
        if self._depth and self._write_lock._is_owned():  # type: ignore[attr-defined]
            return self._writer
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def executescript(self, script: str) -> None:
        with self._write_lock:
            self._writer.executescript(script)

    def close(self) -> None:
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        self._writer.close()
