"""The local webhook worker's rounds: every write of a burst, each waking the worker, is drained, and a write after
the burst is drained at once, not at the next idle round."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any, cast

from mnemo.services.platform.webhooks.worker import WebhookWorker
from tests.support.waits import seconds

IDLE = 3600.0  # the idle round's period: a round that starts before it was started by the wake, not by the clock


class CountingRelay:
    def __init__(self) -> None:
        self.written = 0
        self.drained = 0
        self.rounds = 0
        self.lock = threading.Lock()

    def write(self) -> None:
        with self.lock:
            self.written += 1

    def drain(self) -> None:
        with self.lock:
            self.rounds += 1
            self.drained = self.written


class IdleDispatcher:
    def run_due(self) -> int:
        return 0

    def next_due_at(self) -> datetime | None:
        return None

    def close(self) -> None:
        pass


def until(condition: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds(timeout)
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return bool(condition())


def test_given_a_burst_of_writes_when_each_wakes_the_worker_then_every_write_is_drained():
    relay = CountingRelay()
    worker = WebhookWorker(cast(Any, relay), cast(Any, IdleDispatcher()), idle_seconds=IDLE)
    worker.start()
    try:
        assert until(lambda: relay.rounds == 1)  # the first round, at start
        for _ in range(200):
            relay.write()
            worker.wake()

        assert until(lambda: relay.drained == 200)
        relay.write()
        worker.wake()
        assert until(lambda: relay.drained == 201)  # a later write is drained too, long before the idle hour
    finally:
        worker.stop()


def test_given_an_idle_worker_when_woken_then_the_round_starts_at_once():
    relay = CountingRelay()
    worker = WebhookWorker(cast(Any, relay), cast(Any, IdleDispatcher()), idle_seconds=IDLE)
    worker.start()
    try:
        assert until(lambda: relay.rounds == 1)
        relay.write()
        worker.wake()

        assert until(lambda: relay.drained == 1)  # long before the idle hour: the wake started it
    finally:
        worker.stop()
