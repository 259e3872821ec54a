"""An in-process topic for tests: each event's envelope is sent to every subscribed queue whose event types include
it, as SNS does to its SQS subscriptions. The publisher contract (tests/contract/test_publisher_contract.py) holds
it to what SNS does under moto."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from mnemo.adapters.aws.publisher import TopicEvent
from mnemo.ports.queue import MessageQueue


class InProcessPublisher:
    def __init__(self) -> None:
        self._subscriptions: list[tuple[MessageQueue, frozenset[str] | None]] = []
        self._lock = threading.Lock()

    def subscribe(self, queue: MessageQueue, event_types: Iterable[str] | None = None) -> None:
        """Deliver events to `queue`: only those of `event_types` when given, like an SNS filter policy."""
        with self._lock:
            self._subscriptions.append((queue, None if event_types is None else frozenset(event_types)))

    def publish(self, event: TopicEvent) -> None:
        event.encoded()  # not JSON: raise before delivering anywhere
        with self._lock:
            subscriptions = list(self._subscriptions)
        for queue, types in subscriptions:
            if types is None or event.type in types:
                queue.send(event.envelope())
