"""From deliveries to the receivers: `WebhookDispatcher.run_due` sends the next due delivery of each webhook,
signed (a later one waits for the earlier ones: events reach a receiver in the order they happened). A 2xx is
delivered; anything else, a timeout or a refused connection is tried again after the next delay of the schedule
(with up to 20% jitter), and after the last one the delivery is dead-lettered: kept, visible in the log,
redeliverable, and the webhook's next delivery goes out. A `410 Gone` turns the webhook off (its pending deliveries
are cancelled).

Locally the webhook worker (webhooks/worker.py) runs the relay and the dispatcher in a thread of `mnemo serve`; on
AWS the outbox drains to the SNS topic and the delivery function runs `fan_out` and the dispatcher."""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from mnemo.domain.memory import now
from mnemo.domain.webhooks import Attempt, Delivery, DeliveryState, Webhook
from mnemo.ports.webhook_sender import SendResult, WebhookSender
from mnemo.ports.webhook_store import WebhookStore
from mnemo.services.platform.webhooks.signing import encode_body, signed_headers

log = logging.getLogger("mnemo.webhooks")

JITTER = 0.2  # a retry delay is the schedule's, up to this fraction more or less
GONE = 410


class WebhookDispatcher:
    def __init__(
        self,
        store: WebhookStore,
        sender: WebhookSender,
        schedule: Sequence[float],
        clock: Callable[[], datetime] = now,
        jitter: Callable[[], float] = random.random,
        parallel: int = 8,
    ) -> None:
        self._store = store
        self._sender = sender
        self._schedule = tuple(schedule)
        self._clock = clock
        self._jitter = jitter
        self._pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="mnemo-webhook-send")
        self._parallel = parallel
        self._attempting = threading.Condition()
        self._in_flight: set[str] = set()

    @property
    def max_attempts(self) -> int:
        return len(self._schedule) + 1

    def run_due(self, limit: int = 64) -> int:
        """Send the due delivery of each webhook that has one (different webhooks at once, up to `parallel`);
        returns how many were attempted."""
        due = self._store.due(self._clock(), limit)
        if len(due) == 1:
            self.attempt(due[0])
        elif due:
            list(self._pool.map(self.attempt, due))
        return len(due)

    def next_due_at(self) -> datetime | None:
        return self._store.next_due_at()

    def attempt(self, delivery: Delivery) -> Delivery:
        """One attempt of the delivery, recorded in the store; returns it as it now is. One attempt of a delivery
        at a time in this process: the sweep of due deliveries and a retry message (on AWS, the delivery function
        runs both) can reach the same head at once, and the one that comes second finds it attempted already and
        sends nothing."""
        with self._attempting:
            while delivery.id in self._in_flight:
                self._attempting.wait()
            self._in_flight.add(delivery.id)
        try:
            stored = self._store.get_delivery(delivery.webhook_id, delivery.id)
            if stored is not None and (stored.is_final or len(stored.attempts) != len(delivery.attempts)):
                return stored  # attempted since this copy was read
            return self._attempt(delivery)
        finally:
            with self._attempting:
                self._in_flight.discard(delivery.id)
                self._attempting.notify_all()

    def _attempt(self, delivery: Delivery) -> Delivery:
        webhook = self._store.get_webhook(delivery.webhook_id)
        at = self._clock()
        if webhook is None or not webhook.is_active:
            cancelled = delivery.cancelled(at)
            self._store.save_delivery(cancelled)
            return cancelled
        result = self._send(webhook, delivery, at)
        attempt = Attempt(at, result.status_code, result.error, result.latency_ms, result.response)
        tried = len(delivery.attempts) + 1
        if result.delivered:
            done = delivery.tried(attempt, DeliveryState.DELIVERED, None)
        elif result.status_code == GONE:
            done = delivery.tried(attempt, DeliveryState.DEAD, None)
            self._store.save_webhook(webhook.changed(is_active=False, deactivated_reason="410 Gone", updated_at=at))
            self._store.cancel_pending(webhook.id, at)
            log.warning("webhook %s answered 410 Gone: turned off", webhook.id)
        elif tried >= self.max_attempts:
            done = delivery.tried(attempt, DeliveryState.DEAD, None)
            log.warning("delivery %s of webhook %s dead-lettered after %d attempts", delivery.id, webhook.id, tried)
        else:
            done = delivery.tried(attempt, DeliveryState.PENDING, at + self._delay(tried))
        self._store.save_delivery(done)
        return done

    def _send(self, webhook: Webhook, delivery: Delivery, at: datetime) -> SendResult:
        body = encode_body(delivery.body())
        headers = signed_headers(delivery.id, at, body, webhook.signing_secrets(at))
        return self._sender.send(webhook.url, body, headers)

    def _delay(self, tried: int) -> timedelta:
        """The wait after the `tried`-th failed attempt: the schedule's, with up to JITTER more or less."""
        base = self._schedule[min(tried, len(self._schedule)) - 1]
        return timedelta(seconds=base * (1 + JITTER * (2 * self._jitter() - 1)))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
