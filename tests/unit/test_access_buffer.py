"""The buffer of recorded retrievals (mnemo.services.access_buffer): a record does no I/O, a read sees what waits,
a write happens in batches off the caller's path (now, behind a Lambda invocation, or in the writer thread, which
writes what waits when it closes), a failed write is dropped, deletes drop what waits. No test waits on a timer."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

import pytest

from mnemo.services.access_buffer import AccessBuffer
from tests.support.waits import seconds

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


class Log:
    """An AccessLog in memory that counts its writes, and can be made to fail or to hold a write up."""

    def __init__(self) -> None:
        self.times: dict[str, list[datetime]] = {}
        self.writes: list[dict[str, list[datetime]]] = []
        self.failing = False
        self.forgotten: list[str] = []
        self.cleared = False
        self.hold: threading.Event | None = None
        self.writing = threading.Event()

    def record(self, accesses: Mapping[str, Sequence[datetime]]) -> None:
        self.writing.set()
        if self.hold is not None:
            assert self.hold.wait(seconds(10))
        if self.failing:
            raise RuntimeError("the store is down")
        self.writes.append({k: list(v) for k, v in accesses.items()})
        for memory_id, times in accesses.items():
            self.times[memory_id] = sorted([*self.times.get(memory_id, []), *times], reverse=True)

    def recent(self, memory_ids: Sequence[str]) -> dict[str, list[datetime]]:
        return {i: list(self.times[i]) for i in memory_ids if i in self.times}

    def forget(self, memory_ids: Sequence[str]) -> None:
        self.forgotten += memory_ids
        for memory_id in memory_ids:
            self.times.pop(memory_id, None)

    def clear(self) -> None:
        self.cleared = True
        self.times.clear()


def test_a_record_waits_without_writing_and_is_read_back_at_once():
    buffer, log = AccessBuffer(), Log()
    accesses = buffer.buffered(log)
    accesses.record({"a": [at(1)], "b": [at(2)]})
    accesses.record({"a": [at(3)]})
    assert log.writes == [] and buffer.pending() == 2
    assert accesses.recent(["a", "b", "c"]) == {"a": [at(3), at(1)], "b": [at(2)]}


def test_a_flush_writes_one_batch_per_log_and_reads_then_come_from_the_log():
    buffer, first, second = AccessBuffer(), Log(), Log()
    one, two = buffer.buffered(first), buffer.buffered(second)
    first.times["a"] = [at(0)]
    one.record({"a": [at(1)]})
    one.record({"b": [at(2)]})
    two.record({"a": [at(5)]})  # the same id in another namespace: its own log
    assert buffer.flush() == 3
    assert first.writes == [{"a": [at(1)], "b": [at(2)]}] and second.writes == [{"a": [at(5)]}]
    assert buffer.pending() == 0 and buffer.flush() == 0
    assert one.recent(["a"]) == {"a": [at(1), at(0)]} and two.recent(["a"]) == {"a": [at(5)]}


def test_a_write_that_ends_between_the_two_reads_is_counted_once():
    buffer, log = AccessBuffer(), Log()
    accesses = buffer.buffered(log)
    accesses.record({"a": [at(1)]})
    log.hold = threading.Event()
    writer = threading.Thread(target=buffer.flush)
    writer.start()
    assert log.writing.wait(seconds(10))
    log.times["a"] = [at(1)]  # as if the write had landed, while the buffer still holds it as under way
    assert accesses.recent(["a"]) == {"a": [at(1)]}
    log.times.clear()
    log.hold.set()
    writer.join()
    assert accesses.recent(["a"]) == {"a": [at(1)]}


def test_a_failed_write_is_logged_and_its_accesses_dropped(caplog: pytest.LogCaptureFixture):
    buffer, log = AccessBuffer(), Log()
    accesses = buffer.buffered(log)
    log.failing = True
    accesses.record({"a": [at(1)]})
    with caplog.at_level(logging.ERROR, "mnemo.access"):
        buffer.flush()
    assert "could not write the accesses of 1 memories" in caplog.text
    log.failing = False
    assert buffer.pending() == 0 and accesses.recent(["a"]) == {}


def test_forget_and_clear_drop_what_waits_and_what_is_written():
    buffer, log = AccessBuffer(), Log()
    accesses = buffer.buffered(log)
    accesses.record({"a": [at(1)], "b": [at(2)], "c": [at(3)]})
    accesses.forget(["a"])
    assert log.forgotten == ["a"] and buffer.pending() == 2
    accesses.clear()
    assert log.cleared and buffer.pending() == 0
    accesses.record({"d": [at(4)]})
    accesses.discard()  # its namespace was dropped: nothing is written
    assert buffer.flush() == 0 and log.writes == []


def test_past_the_bound_new_memories_accesses_are_dropped_until_a_write_makes_room(caplog: pytest.LogCaptureFixture):
    buffer, log = AccessBuffer(max_waiting=2), Log()
    accesses = buffer.buffered(log)
    with caplog.at_level(logging.WARNING, "mnemo.access"):
        accesses.record({"a": [at(1)], "b": [at(1)], "c": [at(1)]})
    accesses.record({"a": [at(2)]})  # a memory already waiting takes more
    assert buffer.pending() == 2 and "1 accesses dropped" in caplog.text
    buffer.flush()
    accesses.record({"c": [at(3)]})
    assert buffer.pending() == 1


def test_behind_an_invocation_what_waits_is_written_while_it_runs_and_before_it_ends():
    buffer, log = AccessBuffer(), Log()
    accesses = buffer.buffered(log)
    with buffer.writing_behind():  # nothing waits: no thread
        accesses.record({"a": [at(1)]})  # this invocation's search: waits for the next one
    assert log.writes == []
    log.hold = threading.Event()
    with buffer.writing_behind():
        assert log.writing.wait(seconds(10))  # written beside the invocation's own work
        accesses.record({"b": [at(2)]})
        log.hold.set()
    assert log.writes == [{"a": [at(1)]}]  # done when the invocation ends
    assert buffer.pending() == 1


def test_the_writer_thread_writes_what_waits_when_it_is_closed():
    buffer, log = AccessBuffer(delay=3600), Log()  # a delay no test waits for: close() writes
    accesses = buffer.buffered(log)
    buffer.start()
    accesses.record({"a": [at(1)]})
    buffer.close()
    assert log.writes == [{"a": [at(1)]}]


def test_the_writer_thread_writes_on_its_own():
    buffer, log = AccessBuffer(delay=0), Log()
    accesses = buffer.buffered(log)
    buffer.start()
    try:
        accesses.record({"a": [at(1)]})
        assert log.writing.wait(seconds(10))
    finally:
        buffer.close()
    assert log.writes == [{"a": [at(1)]}]
