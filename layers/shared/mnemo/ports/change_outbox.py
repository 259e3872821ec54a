"""The outbox of a store: the outbound events (mnemo.domain.webhooks) it wrote in the same transaction as the
changes they describe, kept until they are published. A process killed after a change is acknowledged still
has its event: whoever drains the outbox next publishes it.

A memory store of a platform namespace writes one for every change of a memory (`change_events`); the tenancy
store writes one when an ingest job ends (`job_event`). Publishing is at least once: an event read and published
but not yet marked may be read again after a crash, with the same id (a delivery is one per event id)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mnemo.domain.webhooks import OutboundEvent


class ChangeOutbox(Protocol):
    def pending(self, limit: int) -> list[OutboundEvent]:
        """The oldest unpublished events, oldest first (at most `limit`), each with its namespace (project)."""
        ...

    def published(self, event_ids: Sequence[str]) -> None:
        """Forget these events: they are published. Unknown ids are ignored."""
        ...
