"""Processes sharing one SQLite file take turns at writing through a flock on it (mnemo.adapters.sqlite.database):
a writer waits on the lock, not in SQLite's busy handler, and goes as soon as the other commits."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Any

from mnemo.adapters.sqlite.database import Database
from tests.support.waits import seconds


def test_given_two_connections_to_one_file_then_a_second_writer_waits_for_the_first_to_commit(tmp_path: Path):
    path = tmp_path / "shared.sqlite3"
    first, second = Database(path), Database(path)  # as two processes: nothing shared but the file
    try:
        first.executescript("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
        inside = threading.Event()
        release = threading.Event()
        seen: list[int] = []

        def hold() -> None:
            with first.write() as conn:
                conn.execute("INSERT INTO t VALUES (1)")
                inside.set()
                release.wait(seconds(10))

        def follow() -> None:
            with second.write() as conn:
                seen.append(conn.execute("SELECT count(*) FROM t").fetchone()[0])  # what it sees once its turn came
                conn.execute("INSERT INTO t VALUES (2)")

        holder = threading.Thread(target=hold)
        holder.start()
        assert inside.wait(seconds(10))
        follower = threading.Thread(target=follow)
        follower.start()
        follower.join(0.3)
        assert follower.is_alive() and seen == []  # still waiting its turn
        release.set()
        holder.join(seconds(10))
        follower.join(seconds(10))

        assert seen == [1]  # it began after the first committed
        assert [r[0] for r in second.read().execute("SELECT n FROM t ORDER BY n")] == [1, 2]
    finally:
        second.close()
        first.close()


def _open_and_create(path: str, start: Any, round_: int) -> None:
    start.wait()
    db = Database(Path(path))  # switches a new file to WAL
    try:
        for _ in range(3):  # readers of a file another process is switching
            db.read().execute("SELECT count(*) FROM sqlite_master").fetchone()
        db.executescript(f"CREATE TABLE IF NOT EXISTS t{round_} (n INTEGER); CREATE TABLE IF NOT EXISTS u (n INTEGER);")
        with db.write() as conn:
            conn.execute("INSERT INTO u VALUES (1)")
    finally:
        db.close()


def test_given_processes_opening_one_new_file_at_once_then_each_opens_it_and_writes(tmp_path: Path):
    context = multiprocessing.get_context("fork")
    processes, rounds = 8, 20
    for round_ in range(rounds):  # a fresh file each round: the switch to WAL races only on a new one
        path = tmp_path / f"fresh{round_}.sqlite3"
        start = context.Barrier(processes)
        started = [context.Process(target=_open_and_create, args=(str(path), start, round_)) for _ in range(processes)]
        for process in started:
            process.start()
        for process in started:
            process.join(seconds(60))
        assert [process.exitcode for process in started] == [0] * processes
        db = Database(path)
        try:
            assert db.read().execute("SELECT count(*) FROM u").fetchone()[0] == processes
            assert db.read().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            db.close()
