"""The local webhook worker: a Worker of `mnemo serve` (the leader's) that drains the outboxes into deliveries and
sends the due ones, woken at once when a store writes an outbox row (`woken`), and otherwise when the next retry is
due (at least every `idle_seconds`, which also picks up what a crash left behind). On AWS the delivery function does
the same from SQS."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime

from mnemo.domain.memory import now
from mnemo.services.platform.webhooks.dispatcher import WebhookDispatcher
from mnemo.services.platform.webhooks.relay import WebhookRelay
from mnemo.services.workers import Worker

log = logging.getLogger("mnemo.webhooks")


class WebhookWorker(Worker):
    name = "webhook-worker"
    leader_only = True  # it relays every process's outbox events

    def __init__(
        self,
        relay: WebhookRelay,
        dispatcher: WebhookDispatcher,
        idle_seconds: float = 1.0,
        clock: Callable[[], datetime] = now,
        *,
        woken: threading.Event | None = None,
    ) -> None:
        """`woken`: the event the stores set after each outbox write (`wake` sets it too)."""
        super().__init__()
        self._relay = relay
        self._dispatcher = dispatcher
        self._idle = idle_seconds
        self._clock = clock
        self._woken = woken or threading.Event()

    def wake(self) -> None:
        """Something was written to an outbox (called by the stores, after their commit)."""
        self._woken.set()

    def interrupt(self) -> None:
        self._woken.set()

    def finish(self) -> None:
        self._dispatcher.close()

    def run_once(self) -> int:
        """Drain the outboxes, then send what is due until nothing is; returns how many attempts were made."""
        self._relay.drain()
        attempted = 0
        while not self.stopping.is_set():
            sent = self._dispatcher.run_due()
            if not sent:
                break
            attempted += sent
            self._relay.drain()  # what was written meanwhile goes in order behind
        return attempted

    def run(self, stopping: threading.Event) -> None:
        while not stopping.is_set():
            self._woken.clear()  # before the round: a wake during it makes the next round start at once
            try:
                self.run_once()
            except Exception:  # a store or a receiver failing must not end the thread: try again later
                log.exception("webhook worker round failed")
            self._woken.wait(self._wait_seconds())

    def _wait_seconds(self) -> float:
        try:
            due = self._dispatcher.next_due_at()
        except Exception:
            log.exception("webhook worker could not read the next due delivery")
            return self._idle
        if due is None:
            return self._idle
        return max(0.0, min(self._idle, (due - self._clock()).total_seconds()))
