"""A project's events, as callers follow them at /v1/event/{id}/ and /v1/events/: asynchronous adds and imports
(the event is the job) and the synchronous operations recorded beside them (deletes); and the cancellation of a
job that has not ended.

A job's queue message names its event; a later part of a long import names it as `<event id>~<items done>`
(`job_ref`): each part is its own message (its own deduplication and idempotency key) for the same event."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mnemo.domain.memory import new_id, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.domain.webhooks import JOB_TYPES
from mnemo.errors import ConflictError, NotFoundError
from mnemo.ports.tenancy_store import EventStore

ADD = "ADD"
IMPORT = "IMPORT"
DELETE = "DELETE"
DREAM = "DREAM"  # a Dream run: synthesis over users of a project (mnemo.services.platform.dream.runs)
EVENT_NOT_FOUND = "Event not found or you don't have permission to access it."
PART_MARK = "~"  # event ids are UUIDs: never in one
CANCELLED_PENDING = "Cancelled before it ran: nothing was added."
CANCELLED_RUNNING = (
    "Cancelled while running: it stops before its next item (an add being made finishes), and keeps what it had "
    "added; its results say what."
)


def job_ref(event_id: str, part: int = 0) -> str:
    """What a queue message names: the event, or a later part of it (`part`: the items done before it)."""
    return f"{event_id}{PART_MARK}{part}" if part else event_id


def event_id_of(ref: str) -> str:
    """The event a queue message names (see job_ref)."""
    return ref.partition(PART_MARK)[0]


@dataclass(frozen=True, slots=True)
class EventPage:
    events: list[PlatformEvent]
    total: int


def new_event(project_id: str, event_type: str, payload: dict[str, Any], moment: datetime) -> PlatformEvent:
    return PlatformEvent(
        id=new_id(),
        project_id=project_id,
        event_type=event_type,
        status=EventStatus.PENDING,
        payload=payload,
        created_at=moment,
        updated_at=moment,
    )


class EventService:
    def __init__(self, store: EventStore, clock: Callable[[], datetime] = now) -> None:
        self._store = store
        self._clock = clock

    def get(self, project_id: str, event_id: str) -> PlatformEvent:
        event = self._store.get_event(project_id, event_id)
        if event is None:
            raise NotFoundError(EVENT_NOT_FOUND)
        return event

    def page(self, project_id: str, offset: int, limit: int) -> EventPage:
        """Newest first, with the project's count of events."""
        return EventPage(self._store.events_of_project(project_id, limit, offset), self._store.count_events(project_id))

    def record(self, project_id: str, event_type: str, payload: dict[str, Any], results: list[dict[str, Any]]) -> str:
        """A synchronous operation's event, stored SUCCEEDED (deletes): its id is what the caller is told."""
        moment = self._clock()
        event = new_event(project_id, event_type, payload, moment).changed(
            status=EventStatus.SUCCEEDED, results=results, started_at=moment, completed_at=moment
        )
        self._store.save_event(event)
        return event.id

    def cancel(self, project_id: str, event_id: str) -> PlatformEvent:
        """End a job that has not ended, CANCELLED: a PENDING one never runs; a RUNNING one stops before its next
        item (the worker reads the status between items, and before it stores the end of an add). A job that has
        ended is a ConflictError; an event that is no job (a delete) has always ended."""
        event = self.get(project_id, event_id)
        if event.status.finished or event.event_type not in JOB_TYPES:
            raise ConflictError(
                f"Event {event.id} has already ended ({event.status.value}); only a PENDING or RUNNING job (an "
                "asynchronous add or an import) can be cancelled."
            )
        moment = self._clock()
        cancelled = event.changed(
            status=EventStatus.CANCELLED,
            error=CANCELLED_RUNNING if event.status is EventStatus.RUNNING else CANCELLED_PENDING,
            completed_at=moment,
            updated_at=moment,
        )
        if not self._store.update_event(cancelled):  # gone, or ended meanwhile (the store's status rule)
            ended = self.get(project_id, event_id)
            raise ConflictError(
                f"Event {ended.id} has already ended ({ended.status.value}); only a PENDING or RUNNING job (an "
                "asynchronous add or an import) can be cancelled."
            )
        return cancelled
