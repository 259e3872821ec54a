"""The in-process queue's wake (mnemo.adapters.inprocess.queue): a stopping worker's `receive` returns at once
instead of at the end of its poll, whether it was waiting already or about to, and the queue goes on delivering."""

from __future__ import annotations

import threading

from mnemo.adapters.inprocess.queue import InProcessQueue, QueuedMessage
from tests.support.waits import seconds

LONG = 600.0  # a poll no test may sit through: a `receive` still waiting at the join fails the test


def test_a_waiting_receive_returns_empty_when_woken_and_the_queue_still_delivers_after() -> None:
    queue = InProcessQueue()
    got: list[list[QueuedMessage]] = []
    waiting = threading.Thread(target=lambda: got.append(queue.receive(wait_seconds=LONG)))
    waiting.start()

    queue.wake()  # while the receive waits, or before it starts to: either way it returns
    waiting.join(seconds(30))

    assert not waiting.is_alive() and got == [[]]
    queue.send({"n": 1})
    assert [m.body for m in queue.receive(wait_seconds=LONG)] == [{"n": 1}]


def test_a_wake_before_any_receive_returns_the_next_one_only() -> None:
    queue = InProcessQueue()
    queue.wake()

    assert queue.receive(wait_seconds=LONG) == []  # at once: a worker about to wait when stopped
    queue.send({"n": 2})
    assert [m.body for m in queue.receive(wait_seconds=LONG)] == [{"n": 2}]  # the wake was used up
