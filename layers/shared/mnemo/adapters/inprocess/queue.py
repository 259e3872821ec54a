"""An in-process queue with FIFO queue semantics: per-group order, and a dedup id dropping repeats for five
minutes. Messages live in memory only; `receive` is how a local worker takes them."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mnemo.ports.queue import json_text

DEDUP_WINDOW_SECONDS = 300.0


@dataclass(frozen=True, slots=True)
class QueuedMessage:
    id: str
    body: dict[str, Any]
    group: str | None
    dedup_id: str | None


class InProcessQueue:
    def __init__(
        self, *, dedup_window: float = DEDUP_WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._messages: deque[QueuedMessage] = deque()
        self._recent: dict[str, tuple[float, str]] = {}  # dedup id -> (sent at, message id)
        self._window = dedup_window
        self._clock = clock
        self._ready = threading.Condition()
        self._woken = False  # the next `receive` returns at once (`wake`)

    def send(self, message: Mapping[str, Any], *, group: str | None = None, dedup_id: str | None = None) -> str:
        body = json.loads(json_text(message))  # a copy, and the same JSON check as SQS
        with self._ready:
            moment = self._clock()
            self._recent = {k: v for k, v in self._recent.items() if moment - v[0] < self._window}
            if dedup_id is not None and dedup_id in self._recent:
                return self._recent[dedup_id][1]
            message_id = str(uuid.uuid4())
            if dedup_id is not None:
                self._recent[dedup_id] = (moment, message_id)
            self._messages.append(QueuedMessage(message_id, body, group, dedup_id))
            self._ready.notify()
        return message_id

    def receive(self, max_messages: int = 10, wait_seconds: float = 0.0) -> list[QueuedMessage]:
        """Take up to `max_messages`, oldest first, waiting up to `wait_seconds` for the first one."""
        with self._ready:
            if not self._messages and wait_seconds > 0 and not self._woken:
                self._ready.wait_for(lambda: bool(self._messages) or self._woken, timeout=wait_seconds)
            self._woken = False
            taken: list[QueuedMessage] = []
            while self._messages and len(taken) < max_messages:
                taken.append(self._messages.popleft())
            return taken

    def wake(self) -> None:
        """Have the `receive` waiting now, or else the next one, return at once with what there is (a worker that
        stops: whether it is already waiting or about to)."""
        with self._ready:
            self._woken = True
            self._ready.notify_all()

    def __len__(self) -> int:
        with self._ready:
            return len(self._messages)
