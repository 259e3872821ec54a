"""Webhook delivery from a queue (the AWS delivery function's work, whose entry reads the SQS records and hands each
here as an outbound event or a retry), over the relay and the dispatcher of this package.

- **An outbound event** (one the relay published to the events topic): `deliver` makes its deliveries (`fan_out`:
  one per subscribed, active webhook of its project; idempotent per delivery id, so an event received twice makes
  them once), then sends each affected webhook's due deliveries, head first, in sequence order (`send_heads`).
  The event is also told to the `listeners` (the profiles: a memory change makes its user's profile stale).
- **A retry** (`{"kind": "webhook.retry", "webhook_id", "delivery_id", "attempts"}`, `is_retry`): whoever makes a
  failed attempt whose next attempt is due within 15 minutes sends one, delayed until then (SQS's longest delay);
  a later one is left to the schedule. On receipt (`retry`), the webhook's head is sent if it is still that
  delivery after that many attempts (anything else means another attempt was made since, and whoever made it
  scheduled its own follow-up: retries never multiply); received early, it is delayed again.
- **The schedule** (every minute): `sweep` drains the outboxes to the topic (what a process killed between its
  commit and its publish left behind) and sends every due head (the retries beyond 15 minutes, redeliveries from
  the log, whatever a failed invocation left), different webhooks at once.

A message whose handling raises (a store that fails) is reported failed by the entry: the queue brings it back,
and in the end dead-letters it. A receiver that fails is no error: its attempt is recorded and retried on the
schedule of the dispatcher. Each attempt starts only while the invocation has `margin_seconds` left (an attempt's
whole timeout and more); past that, a retry at once is sent instead, so that another invocation goes on.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from mnemo.domain.memory import now
from mnemo.domain.webhooks import Delivery, DeliveryState, OutboundEvent
from mnemo.ports.webhook_store import WebhookStore
from mnemo.services.platform.webhooks.dispatcher import WebhookDispatcher
from mnemo.services.platform.webhooks.relay import WebhookRelay, fan_out

log = logging.getLogger("mnemo.webhooks")

RETRY_KIND = "webhook.retry"
RETRY_VERSION = 1
MAX_DELAY_SECONDS = 900  # the longest an SQS message can be delayed
SWEEP_BATCH = 64  # heads read at a time by the sweep

TimeLeft = Callable[[], float]  # seconds left to the invocation


class HeadedWebhookStore(WebhookStore, Protocol):
    def head(self, webhook_id: str) -> Delivery | None:
        """The head of an active webhook's queue, due or not (mnemo.adapters.dynamodb.webhook_store)."""
        ...


class RetryQueue(Protocol):
    def send(self, message: Mapping[str, Any], *, delay_seconds: int = 0) -> str: ...


def due_at(delivery: Delivery) -> datetime:
    return delivery.next_attempt_at or delivery.created_at


def retry_message(delivery: Delivery) -> dict[str, Any]:
    """The follow-up of a delivery's failed attempt: ids and a count, nothing of the event."""
    return {
        "kind": RETRY_KIND,
        "version": RETRY_VERSION,
        "webhook_id": delivery.webhook_id,
        "delivery_id": delivery.id,
        "attempts": len(delivery.attempts),
    }


def is_retry(message: Any) -> bool:
    """Whether a message of the delivery queue is a retry (else it is an outbound event)."""
    return isinstance(message, Mapping) and message.get("kind") == RETRY_KIND


@dataclass(frozen=True, slots=True)
class SweepResult:
    relayed: int  # outbox events published to the topic
    attempted: int  # delivery attempts made
    drained: bool  # False: the outboxes could not be drained (logged); they are tried again next time


class WebhookDelivery:
    def __init__(
        self,
        store: HeadedWebhookStore,
        dispatcher: WebhookDispatcher,
        relay: WebhookRelay,
        retries: RetryQueue | None,
        *,
        margin_seconds: float,
        parallel: int = 8,
        clock: Callable[[], datetime] = now,
        listeners: Sequence[Callable[[Sequence[OutboundEvent]], object]] = (),
    ) -> None:
        """`retries`: the delivery queue itself, where retries are sent (None: the schedule alone retries).
        `listeners` are told of each topic event received (the profiles' staleness); one that fails is logged, and
        the event is delivered all the same."""
        self._store = store
        self._listeners = tuple(listeners)
        self._dispatcher = dispatcher
        self._relay = relay
        self._retries = retries
        self._margin = margin_seconds
        self._clock = clock
        self._pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="mnemo-webhook-sweep")

    def deliver(self, event: OutboundEvent, time_left: TimeLeft) -> int:
        """An outbound event received: its deliveries made and the affected webhooks' due ones sent; returns the
        attempts made. Raises when a store fails (the message is then retried, and in the end dead-lettered)."""
        made = fan_out(self._store, [event], self._clock())
        self._tell(event)
        webhook_ids = list(dict.fromkeys(d.webhook_id for d in made))
        if not made:  # a repeat (its deliveries were made by the first): send what may still wait
            wanted = self._store.webhooks_of_project(event.namespace)
            webhook_ids = [w.id for w in wanted if w.is_active and event.type in w.event_types]
        return sum(self.send_heads(webhook_id, time_left) for webhook_id in webhook_ids)

    def _tell(self, event: OutboundEvent) -> None:
        for listener in self._listeners:
            try:
                listener([event])
            except Exception:
                log.exception("a listener of topic events failed")

    def retry(self, message: Mapping[str, Any], time_left: TimeLeft) -> int:
        """A retry message received (`is_retry`): the webhook's head sent when it is still due that attempt."""
        webhook_id = str(message["webhook_id"])
        head = self._store.head(webhook_id)
        if head is None or head.id != message.get("delivery_id") or len(head.attempts) != message.get("attempts"):
            return 0  # delivered, dead-lettered or tried again since: whoever did it follows up
        if due_at(head) > self._clock():
            self._schedule(head)  # early: wait again
            return 0
        return self.send_heads(webhook_id, time_left)

    def send_heads(self, webhook_id: str, time_left: TimeLeft) -> int:
        """Send the webhook's due deliveries in sequence order, each after the one before it is final, until its
        head is not due (a failed attempt schedules its retry) or it has none; returns the attempts made."""
        attempted = 0
        last: tuple[str, int] | None = None
        while True:
            head = self._store.head(webhook_id)
            if head is None or due_at(head) > self._clock():
                return attempted
            if last == (head.id, len(head.attempts)):
                log.warning("delivery %s of webhook %s did not move after an attempt", head.id, webhook_id)
                return attempted
            if time_left() < self._margin:
                self._schedule(head, delay=0)  # another invocation goes on
                return attempted
            done = self._dispatcher.attempt(head)
            attempted += 1
            last = (done.id, len(done.attempts))
            if done.state is DeliveryState.PENDING:
                self._schedule(done)
                return attempted

    def _schedule(self, delivery: Delivery, delay: float | None = None) -> None:
        if self._retries is None:
            return
        wait = delay if delay is not None else (due_at(delivery) - self._clock()).total_seconds()
        if wait > MAX_DELAY_SECONDS:
            return  # the schedule sends it when it is due
        try:
            self._retries.send(retry_message(delivery), delay_seconds=math.ceil(max(wait, 0.0)))
        except Exception:  # the schedule sends it anyway: a retry message only makes it sooner
            log.warning("could not schedule the retry of delivery %s", delivery.id, exc_info=True)

    def sweep(self, time_left: TimeLeft) -> SweepResult:
        """Drain the outboxes to the topic, then send every due head while there is time."""
        relayed, drained = 0, True
        try:
            relayed = self._relay.drain()
        except Exception:
            log.exception("the outboxes could not be drained to the topic")
            drained = False
        attempted = 0
        while time_left() > self._margin:
            due = self._store.due(self._clock(), SWEEP_BATCH)
            if not due:
                break
            webhook_ids = list(dict.fromkeys(d.webhook_id for d in due))
            counts = list(self._pool.map(lambda webhook_id: self.send_heads(webhook_id, time_left), webhook_ids))
            attempted += sum(counts)
            if not any(counts):
                break
        return SweepResult(relayed, attempted, drained)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
