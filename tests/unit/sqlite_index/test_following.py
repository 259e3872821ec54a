"""The index log: keys no two processes share, and another process's changes applied to this one's rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from mnemo.adapters.sqlite import change_log
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index.following import IndexLog
from mnemo.domain.memory import MemoryRecord
from tests.unit.sqlite_index.making import WIDTH, added, empty_rows, records_of, unit_rows


class Records:
    """The file's records as another process left them."""

    def __init__(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        self.stored = {r.id: (r, v) for r, v in zip(records, vectors, strict=True)}

    def present(self, memory_ids: Sequence[str]) -> set[str]:
        return {i for i in memory_ids if i in self.stored}

    def records(self, memory_ids: Sequence[str]) -> tuple[list[MemoryRecord], np.ndarray]:
        found = [self.stored[i] for i in memory_ids if i in self.stored]
        return [r for r, _ in found], np.array([v for _, v in found], dtype=np.float32).reshape(len(found), WIDTH)

    def scan(self) -> Iterable[tuple[list[MemoryRecord], np.ndarray]]:
        return [self.records(list(self.stored))]


def never() -> None:
    raise AssertionError("not expected to reload")


def test_given_two_logs_on_one_file_then_their_keys_never_meet(db: Database):
    mine, theirs = IndexLog(db), IndexLog(db)

    with db.write() as conn:
        first = mine.allocate(conn, 3)
    with db.write() as conn:
        second = theirs.allocate(conn, 2)
    with db.write() as conn:
        third = mine.allocate(conn, 0)

    assert first == [1, 2, 3] and second == [4, 5] and third == []
    assert mine.next_key == 6


def test_given_another_process_indexed_and_removed_memories_then_following_applies_only_its_last_change(
    db: Database,
):
    mine, theirs = IndexLog(db), IndexLog(db)
    records = records_of(["kept", "removed again", "never stored"])
    stored = Records(records[:2], unit_rows(2, seed=1))
    rows = empty_rows()
    with db.write() as conn:
        theirs.write(conn, [(records[0].id, 4), (records[1].id, 5), (records[2].id, 6), (records[1].id, None)])

    mine.follow(db.read(), rows, stored, never)

    assert rows.partitions.keys == {records[0].id: 4}
    assert rows.removed is False
    assert mine.orphans == {records[2].id: 6}  # indexed by the other process, its record gone when read
    assert mine.next_key == 5
    assert mine.seen == change_log.last_seq(db.read(), "index_log")


def test_given_this_process_wrote_the_rows_then_following_skips_them(db: Database):
    mine = IndexLog(db)
    records = records_of(["mine"])
    rows = empty_rows()
    with db.write() as conn:
        mine.write(conn, [(records[0].id, 1)])

    mine.follow(db.read(), rows, Records(records, unit_rows(1, seed=2)), never)

    assert rows.partitions.keys == {}
    assert mine.seen == change_log.last_seq(db.read(), "index_log")


def test_given_another_process_took_everything_out_then_following_empties_the_rows(db: Database):
    mine, theirs = IndexLog(db), IndexLog(db)
    before, after = records_of(["before", "after"])
    stored = Records([after], unit_rows(1, seed=3))
    rows = empty_rows()
    added(rows, [before], unit_rows(1, seed=4), [1])
    mine.orphans["orphan"] = 9
    with db.write() as conn:
        theirs.write(conn, [(change_log.EVERYTHING, None), (after.id, 12)])

    mine.follow(db.read(), rows, stored, never)

    assert rows.partitions.keys == {after.id: 12}
    assert rows.removed is True
    assert mine.orphans == {}
    assert mine.next_key == 13


def test_given_an_index_alone_then_following_only_moves_past_the_rows(db: Database):
    mine, theirs = IndexLog(db), IndexLog(db)
    rows = empty_rows()
    with db.write() as conn:
        theirs.write(conn, [("m1", 1)])

    mine.follow(db.read(), rows, None, never)

    assert rows.partitions.keys == {}
    assert mine.seen == change_log.last_seq(db.read(), "index_log")


def test_given_rows_pruned_before_they_were_read_then_the_index_is_loaded_again(db: Database):
    mine, theirs = IndexLog(db), IndexLog(db)
    reloaded: list[bool] = []
    with db.write() as conn:
        theirs.write(conn, [("m1", 1), ("m2", 2)])
        conn.execute("DELETE FROM index_log WHERE memory_id = 'm1'")  # as a prune would

    mine.follow(db.read(), empty_rows(), Records([], np.zeros((0, WIDTH))), lambda: reloaded.append(True))

    assert reloaded == [True]


def test_given_a_commit_of_another_connection_then_the_log_has_moved(db: Database):
    mine, theirs = IndexLog(db), IndexLog(db)
    assert mine.moved()  # the first look
    assert not mine.moved()

    with db.write() as conn:
        theirs.write(conn, [("m1", 1)])

    assert mine.moved()
