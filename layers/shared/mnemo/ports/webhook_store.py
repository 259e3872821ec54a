"""Where a platform project's webhooks and their deliveries are kept (the main SQLite file locally, the accounts
table on AWS)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from mnemo.domain.erasure import Erasure
from mnemo.domain.webhooks import Delivery, DeliveryState, OutboundEvent, Webhook


class WebhookStore(Protocol):
    def add_webhook(self, webhook: Webhook) -> None: ...

    def get_webhook(self, webhook_id: str) -> Webhook | None: ...

    def webhooks_of_project(self, project_id: str) -> list[Webhook]:
        """Oldest first."""
        ...

    def save_webhook(self, webhook: Webhook) -> None:
        """Replace a stored webhook (its id unchanged)."""
        ...

    def delete_webhook(self, webhook_id: str) -> bool:
        """The webhook and every delivery of it; False when there was none."""
        ...

    def delete_project_webhooks(self, project_id: str) -> None:
        """Every webhook of a project being deleted, with their deliveries and the erased ids it remembers."""
        ...

    # ---- deliveries -------------------------------------------------------------------------------------

    def enqueue(
        self, webhook: Webhook, events: Sequence[OutboundEvent], at: datetime, *, due: datetime | None = None
    ) -> list[Delivery]:
        """One PENDING delivery of each event to the webhook, made at `at` and due then (or at `due`), each with
        the webhook's next sequence number (1, 2, ... in the order given; atomically, whoever else enqueues). An
        event already delivered to it, or on its way (the same `delivery_id`), is skipped: returns only the
        deliveries made. Nothing is made for a webhook no longer stored (deleted since the caller read it). An event
        naming a memory `erase_from_deliveries` has erased in the project (read before the delete, made a delivery
        after) is kept without its text (`domain.erasure.erased_late`), whichever of the two comes first."""
        ...

    def due(self, at: datetime, limit: int) -> list[Delivery]:
        """The next delivery of each active webhook that has one due: its PENDING delivery of the lowest
        sequence, when its next attempt is at or before `at` (a later delivery waits for the earlier ones to be
        delivered, dead-lettered or cancelled). At most `limit`, the longest-waiting first."""
        ...

    def next_due_at(self) -> datetime | None:
        """When the earliest of the deliveries `due` gives will be due: the earliest next attempt among the heads
        of the active webhooks' queues (each one's PENDING delivery of the lowest sequence; a later delivery
        waits for its head, so its own time does not count). None: nothing pending."""
        ...

    def save_delivery(self, delivery: Delivery) -> None:
        """Replace a stored delivery (its state, attempts, next attempt)."""
        ...

    def get_delivery(self, webhook_id: str, delivery_id: str) -> Delivery | None: ...

    def deliveries_of(self, webhook_id: str, state: DeliveryState | None, limit: int, offset: int) -> list[Delivery]:
        """The webhook's deliveries, newest (highest sequence) first, optionally of one state."""
        ...

    def count_deliveries(self, webhook_id: str, state: DeliveryState | None) -> int: ...

    def cancel_pending(self, webhook_id: str, at: datetime) -> int:
        """Cancel every PENDING delivery of the webhook (it was deactivated); returns how many."""
        ...

    def erase_from_deliveries(self, project_id: str, erasure: Erasure) -> int:
        """Every delivery of the project's webhooks (in any state: pending, delivered, dead, cancelled) whose event
        names an erased memory, rewritten without the memory's texts (`domain.erasure.scrubbed_outbound`); how
        many. A delivery saved after an attempt keeps the scrubbed event (`save_delivery` never writes the event
        back). One pass over the project's deliveries. The erased ids are remembered for
        `domain.erasure.ERASED_KEPT` (longer than an event can wait in the relay or on the topic), so that a later
        `enqueue` of an event naming one of them keeps it without its text."""
        ...
