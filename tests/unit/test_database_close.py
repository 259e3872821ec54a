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


def test_a_file_closed_while_other_threads_read_it_fails_their_reads_cleanly(tmp_path: Path) -> None:
    """A project deleted while requests read its file: closing a connection another thread is using crashed the
    process (a segfault in CI). Readers keep running until they see the store is gone, as a NotFoundError."""
    import threading
    import time

    import pytest

    from mnemo.errors import NotFoundError

    database = Database(tmp_path / "project.sqlite3")
    database.executescript("CREATE TABLE t (v TEXT)")
    with database.write() as conn:
        conn.executemany("INSERT INTO t VALUES (?)", [(f"row {n}",) for n in range(2_000)])
    started, outcomes = threading.Barrier(5), []

    def reader() -> None:
        started.wait()
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                database.read().execute("SELECT count(*), max(v) FROM t, (SELECT 1 UNION SELECT 2)").fetchone()
        except NotFoundError as gone:
            outcomes.append(str(gone))
        except sqlite3.Error as interrupted:  # a query running when it closed is interrupted, not crashed
            outcomes.append(type(interrupted).__name__)
        else:
            outcomes.append("still reading")

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    started.wait()
    database.close_in_use()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads) and len(outcomes) == 4
    assert all(o in ("The store was closed: its project was deleted.", "OperationalError") for o in outcomes)
    with pytest.raises(NotFoundError):
        database.read()
    with pytest.raises(NotFoundError), database.write():
        pass
