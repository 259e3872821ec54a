"""Closing a Database checkpoints its WAL into the main file and truncates it, so what a write replaced does not
linger there after a clean stop, even while another connection (another process serving the data dir) keeps the
file open and SQLite would otherwise leave the WAL as it is."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mnemo.adapters.sqlite.database import Database


def wal_of(path: Path) -> Path:
    return Path(f"{path}-wal")


def test_close_truncates_the_wal_another_connection_keeps(tmp_path: Path) -> None:
    # Given a database written through, and another connection on the same file (as another process's would be)
    path = tmp_path / "mnemo.sqlite3"
    database = Database(path)
    database.executescript("CREATE TABLE t (v TEXT)")
    with database.write() as conn:
        conn.execute("INSERT INTO t VALUES ('replaced-value-0123456789')")
    with database.write() as conn:
        conn.execute("UPDATE t SET v = 'current'")
    other = sqlite3.connect(path)
    try:
        other.execute("SELECT count(*) FROM t").fetchone()  # it has the file open, no snapshot held
        assert wal_of(path).stat().st_size > 0
        # When the database closes
        database.close()
        # Then its WAL was checkpointed and truncated, and the data is in the main file
        assert wal_of(path).stat().st_size == 0
        assert other.execute("SELECT v FROM t").fetchall() == [("current",)]
    finally:
        other.close()


def test_close_still_closes_when_a_reader_holds_the_wal(tmp_path: Path) -> None:
    # Given another connection in the middle of a read transaction (it holds a snapshot in the WAL)
    path = tmp_path / "mnemo.sqlite3"
    database = Database(path)
    database.executescript("CREATE TABLE t (v TEXT)")
    with database.write() as conn:
        conn.execute("INSERT INTO t VALUES ('a')")
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN")
        other.execute("SELECT count(*) FROM t").fetchone()
        with database.write() as conn:
            conn.execute("INSERT INTO t VALUES ('b')")
        # When the database closes, then it closes (the WAL is left to the last connection)
        database.close()
        other.execute("COMMIT")
        assert other.execute("SELECT count(*) FROM t").fetchone() == (2,)
    finally:
        other.close()
