"""Webhooks of a platform project: what a webhook is, the events it can subscribe to, the outbound events a
memory change or an ingest job's end makes, and the deliveries of an event to a webhook.

The path of an event: a memory store writes the event into its outbox in the same transaction as the change
(`OutboundEvent`, see mnemo.ports.change_outbox); a relay reads the outbox and makes one `Delivery` per
subscribed, active webhook of the project, each with the next sequence number of that webhook; a delivery
worker sends each webhook's deliveries in sequence order, signed, retrying on the schedule, until one is
delivered or dead-lettered, then the next.
"""

from __future__ import annotations

import base64
import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, new_id, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.domain.timefmt import from_iso, iso

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
ROTATION_OVERLAP = timedelta(hours=24)  # a rotated-out secret keeps signing beside the new one this long
MAX_WEBHOOKS_PER_PROJECT = 50
MAX_URL = 2_048


class WebhookEventType(StrEnum):
    MEMORY_ADD = "memory_add"
    MEMORY_UPDATE = "memory_update"
    MEMORY_DELETE = "memory_delete"
    MEMORY_CATEGORIZE = "memory_categorize"
    INGEST_JOB_COMPLETED = "ingest_job_completed"
    INGEST_JOB_PARTIALLY_COMPLETED = "ingest_job_partially_completed"
    INGEST_JOB_FAILED = "ingest_job_failed"
    INGEST_JOB_CANCELLED = "ingest_job_cancelled"


EVENT_TYPES = tuple(t.value for t in WebhookEventType)
TEST_EVENT = "webhook_test"  # what POST .../test/ sends: delivered whatever the webhook subscribes to

# What a memory_delete event of a deleted memory carries as `data.memory`: the receiver acts on the id; the text,
# erased everywhere else, is not sent out (nor kept in the outbox and the delivery log) again.
ERASED_TEXT = ""

_MEMORY_EVENT = {
    Event.ADD: WebhookEventType.MEMORY_ADD,
    Event.UPDATE: WebhookEventType.MEMORY_UPDATE,
    Event.DELETE: WebhookEventType.MEMORY_DELETE,
}


def new_secret() -> str:
    """A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


@dataclass(frozen=True, slots=True)
class Webhook:
    id: str
    project_id: str
    name: str
    url: str
    event_types: tuple[str, ...]
    owner: str  # the email of whoever created it
    secret: str
    created_at: datetime
    updated_at: datetime
    is_active: bool = True
    previous_secret: str | None = None  # after a rotation: still signs until previous_secret_expires_at
    previous_secret_expires_at: datetime | None = None
    deactivated_reason: str | None = None  # why it stopped (a 410 Gone from the receiver), when it did

    def wants(self, event_type: str) -> bool:
        return self.is_active and (event_type in self.event_types or event_type == TEST_EVENT)

    def signing_secrets(self, at: datetime) -> tuple[str, ...]:
        """The secrets that sign a delivery sent at `at`: the current one, and the previous one during the
        overlap after a rotation."""
        expires = self.previous_secret_expires_at
        if self.previous_secret and expires is not None and at < expires:
            return (self.secret, self.previous_secret)
        return (self.secret,)

    def rotated(self, at: datetime) -> Webhook:
        return replace(
            self,
            secret=new_secret(),
            previous_secret=self.secret,
            previous_secret_expires_at=at + ROTATION_OVERLAP,
            updated_at=at,
        )

    def changed(self, **fields: Any) -> Webhook:
        return replace(self, **fields)


@dataclass(frozen=True, slots=True)
class OutboundEvent:
    """An event as the outbox keeps it: its type, the namespace (project) it happened in, and its payload (the
    body a receiver gets, without the delivery's own fields: the sequence number, the webhook)."""

    id: str
    type: str
    namespace: str
    payload: Mapping[str, Any]
    occurred_at: datetime
    position: int = 0  # the outbox's order (an autoincrement, or a sort key); 0 before it is stored

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object (how a store keeps it inside a delivery); `from_json` reads it back."""
        return {
            "id": self.id,
            "type": self.type,
            "namespace": self.namespace,
            "payload": dict(self.payload),
            "occurred_at": iso(self.occurred_at),
            "position": self.position,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> OutboundEvent:
        return cls(
            id=raw["id"],
            type=raw["type"],
            namespace=raw["namespace"],
            payload=raw["payload"],
            occurred_at=from_iso(raw["occurred_at"]),
            position=int(raw.get("position", 0)),
        )

    def body(self, project_id: str, sequence: int, webhook_id: str) -> dict[str, Any]:
        """What a receiver gets: Mem0's shape (`event_details`) with ours beside it."""
        return {
            **self.payload,
            "event_type": self.type,
            "event_id": self.id,
            "project_id": project_id,
            "webhook_id": webhook_id,
            "sequence": sequence,
            "occurred_at": iso(self.occurred_at),
        }


def _entity_ids(record: MemoryRecord) -> dict[str, str | None]:
    scope = record.scope
    return {"user_id": scope.user_id, "agent_id": scope.agent_id, "app_id": scope.app_id, "run_id": scope.run_id}


def memory_event(kind: WebhookEventType, record: MemoryRecord, text: str | None, at: datetime) -> OutboundEvent:
    """A memory's add, update or delete in Mem0's payload shape, with the memory's entity ids."""
    details = {"id": record.id, "data": {"memory": text if text is not None else record.text}, "event": _mem0(kind)}
    return OutboundEvent(new_id(), kind.value, "", {"event_details": details, **_entity_ids(record)}, at)


def categorize_event(record: MemoryRecord, at: datetime) -> OutboundEvent:
    details = {"event": "CATEGORIZE", "memory_id": record.id, "categories": list(record.categories)}
    payload = {"event_details": details, **_entity_ids(record)}
    return OutboundEvent(new_id(), WebhookEventType.MEMORY_CATEGORIZE.value, "", payload, at)


def _mem0(kind: WebhookEventType) -> str:
    return {"memory_add": "ADD", "memory_update": "UPDATE", "memory_delete": "DELETE"}[kind.value]


def change_events(
    records: Sequence[MemoryRecord], history: Sequence[HistoryEntry], before: Mapping[str, MemoryRecord]
) -> list[OutboundEvent]:
    """The outbound events of one write of a memory store: for each history entry, the memory's add, update or
    delete, and a categorize when the memory's categories are set or changed by it. `records` are the records
    written (adds and updates), `before` the records as they were before the write (updates and deletes). The delete
    of a memory removed for good carries its id and entity ids, not its text (`ERASED_TEXT`); one retired and kept
    (superseded, merged) carries its text, which is still stored."""
    written = {r.id: r for r in records}
    events: list[OutboundEvent] = []
    for entry in history:
        kind = _MEMORY_EVENT.get(entry.event)
        if kind is None:
            continue
        at = entry.updated_at
        if kind is WebhookEventType.MEMORY_DELETE:
            kept = written.get(entry.memory_id)  # retired (superseded, merged): still stored, its text readable
            gone = before.get(entry.memory_id)
            if kept is not None:
                events.append(memory_event(kind, kept, entry.old_memory or kept.text, at))
            elif gone is not None:  # deleted: the event names it, and carries no text (a delete erases)
                events.append(memory_event(kind, gone, ERASED_TEXT, at))
            continue
        record = written.get(entry.memory_id)
        if record is None:
            continue
        events.append(memory_event(kind, record, entry.new_memory or record.text, at))
        old = before.get(record.id)
        if record.categories and (old is None or tuple(old.categories) != tuple(record.categories)):
            events.append(categorize_event(record, at))
    return events


# The platform events that are ingest jobs: an asynchronous add, and an import (many conversations and memories,
# one job; mnemo.services.platform.imports).
JOB_TYPES = frozenset({"ADD", "IMPORT"})
_JOB_ENDS = {
    EventStatus.SUCCEEDED: WebhookEventType.INGEST_JOB_COMPLETED,
    EventStatus.PARTIALLY_COMPLETED: WebhookEventType.INGEST_JOB_PARTIALLY_COMPLETED,
    EventStatus.FAILED: WebhookEventType.INGEST_JOB_FAILED,
    EventStatus.CANCELLED: WebhookEventType.INGEST_JOB_CANCELLED,
}


def job_event(event: PlatformEvent) -> OutboundEvent | None:
    """The outbound event of an ingest job that has just ended (None for any other change of a platform event).
    Its id follows from the job and its end, so that writing the same end twice makes one event. `results` counts
    an add's memories by their event (ADD, UPDATE, DELETE, NONE), an import's items by their status (ADDED,
    REFUSED, FAILED)."""
    kind = _JOB_ENDS.get(event.status)
    if kind is None or event.event_type not in JOB_TYPES:
        return None
    key, default = ("status", "FAILED") if event.event_type == "IMPORT" else ("event", "NONE")
    counts: dict[str, int] = {}
    for result in event.results:
        name = str(result.get(key, default))
        counts[name] = counts.get(name, 0) + 1
    details: dict[str, Any] = {
        "job_id": event.id,
        "job_type": event.event_type,
        "status": event.status.value,
        "results": counts,
        "error": event.error,
        "started_at": iso(event.started_at) if event.started_at else None,
        "completed_at": iso(event.completed_at) if event.completed_at else None,
    }
    total = event.payload.get("total") if event.event_type == "IMPORT" else None
    if isinstance(total, int):
        details["total"] = total
    event_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"mnemo:job:{event.id}:{event.status.value}"))
    return OutboundEvent(event_id, kind.value, event.project_id, {"event_details": details}, event.updated_at)


class DeliveryState(StrEnum):
    PENDING = "pending"  # waiting for its turn, or for its next attempt after a failure
    DELIVERED = "delivered"  # a 2xx answer
    DEAD = "dead"  # every attempt of the schedule failed (or the webhook is gone): kept, redeliverable
    CANCELLED = "cancelled"  # the webhook was deactivated (410 Gone) or deleted before it went out


FINAL_STATES = frozenset({DeliveryState.DELIVERED, DeliveryState.DEAD, DeliveryState.CANCELLED})


@dataclass(frozen=True, slots=True)
class Attempt:
    at: datetime
    status_code: int | None  # None: no answer (a refused connection, a timeout, a refused address)
    error: str | None
    latency_ms: float
    response: str | None = None  # the start of what the receiver answered (kept for the delivery log)

    def to_json(self) -> dict[str, Any]:
        return {
            "at": iso(self.at),
            "status_code": self.status_code,
            "error": self.error,
            "latency_ms": self.latency_ms,
            "response": self.response,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Attempt:
        return cls(from_iso(raw["at"]), raw["status_code"], raw["error"], float(raw["latency_ms"]), raw.get("response"))

    def without_answer(self) -> Attempt:
        """The attempt without what the receiver said, which may echo a payload a delete has since erased: no
        response, and an error cut to its status ("HTTP 500 Internal Server Error")."""
        error = self.error.split(": ", 1)[0] if self.error and self.error.startswith("HTTP ") else self.error
        return replace(self, error=error, response=None)


def without_answers(attempts: Sequence[Attempt]) -> tuple[Attempt, ...]:
    return tuple(attempt.without_answer() for attempt in attempts)


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event for one webhook, the `sequence`-th of that webhook. `id` is the `webhook-id` header of every
    attempt (the same on each retry, so that a receiver can drop repeats)."""

    id: str
    webhook_id: str
    project_id: str
    sequence: int
    event: OutboundEvent
    created_at: datetime
    next_attempt_at: datetime | None
    state: DeliveryState = DeliveryState.PENDING
    attempts: tuple[Attempt, ...] = field(default_factory=tuple)
    finished_at: datetime | None = None

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES

    def body(self) -> dict[str, Any]:
        return self.event.body(self.project_id, self.sequence, self.webhook_id)

    def tried(self, attempt: Attempt, state: DeliveryState, next_attempt_at: datetime | None) -> Delivery:
        final = state in FINAL_STATES
        return replace(
            self,
            attempts=(*self.attempts, attempt),
            state=state,
            next_attempt_at=None if final else next_attempt_at,
            finished_at=attempt.at if final else None,
        )

    def redelivered(self, at: datetime | None = None) -> Delivery:
        """Sent again at once (a redelivery from the log): its attempts are kept, its state pending."""
        return replace(self, state=DeliveryState.PENDING, next_attempt_at=at or now(), finished_at=None)

    def cancelled(self, at: datetime) -> Delivery:
        return replace(self, state=DeliveryState.CANCELLED, next_attempt_at=None, finished_at=at)


def delivery_id(webhook_id: str, event_id: str) -> str:
    """One delivery per event and webhook, whoever makes it and however often (an outbox read twice after a
    crash makes the same id, so the store keeps one)."""
    return "msg_" + uuid.uuid5(uuid.NAMESPACE_URL, f"mnemo:webhook:{webhook_id}:{event_id}").hex
