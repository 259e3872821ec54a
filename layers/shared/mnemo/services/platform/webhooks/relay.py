"""From the outboxes to deliveries: `fan_out` makes one delivery per event and subscribed, active webhook of its
project; `WebhookRelay.drain` reads the outboxes (locally into deliveries, on AWS onto the topic) and marks the
events published. A crash between the two makes the same deliveries again, and the store keeps one of each (a
delivery's id follows from its webhook and event)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime

from mnemo.domain.memory import now
from mnemo.domain.webhooks import Delivery, OutboundEvent
from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.ports.webhook_store import WebhookStore

log = logging.getLogger("mnemo.webhooks")

DRAIN_BATCH = 500  # events read from one outbox at a time


def fan_out(store: WebhookStore, events: Sequence[OutboundEvent], at: datetime) -> list[Delivery]:
    """The deliveries of these events: one per event and subscribed, active webhook of its project, in the
    order given (each webhook's sequence numbers follow it)."""
    made: list[Delivery] = []
    by_project: dict[str, list[OutboundEvent]] = {}
    for event in events:
        by_project.setdefault(event.namespace, []).append(event)
    for project_id, project_events in by_project.items():
        for webhook in store.webhooks_of_project(project_id):
            wanted = [e for e in project_events if webhook.is_active and e.type in webhook.event_types]
            if wanted:
                made.extend(store.enqueue(webhook, wanted, at))
    return made


class WebhookRelay:
    """Drains outboxes into deliveries (locally) or onto a topic (on AWS: `publish` given). `listeners` are told of
    each batch of events relayed (locally: the profiles' staleness); one that fails is logged, and the events are
    relayed all the same."""

    def __init__(
        self,
        store: WebhookStore,
        outboxes: Callable[[], Sequence[ChangeOutbox]],
        publish: Callable[[Sequence[OutboundEvent]], None] | None = None,
        clock: Callable[[], datetime] = now,
        listeners: Sequence[Callable[[Sequence[OutboundEvent]], object]] = (),
    ) -> None:
        self._store = store
        self._outboxes = outboxes
        self._publish = publish
        self._clock = clock
        self._listeners = tuple(listeners)

    def drain(self) -> int:
        """Every pending event of every outbox; returns how many were relayed."""
        relayed = 0
        for outbox in self._outboxes():
            while True:
                events = outbox.pending(DRAIN_BATCH)
                if not events:
                    break
                if self._publish is not None:
                    self._publish(events)
                else:
                    fan_out(self._store, events, self._clock())
                self._tell(events)
                outbox.published([e.id for e in events])
                relayed += len(events)
                if len(events) < DRAIN_BATCH:
                    break
        return relayed

    def _tell(self, events: Sequence[OutboundEvent]) -> None:
        for listener in self._listeners:
            try:
                listener(events)
            except Exception:
                log.exception("a listener of relayed events failed")
