"""A project's events, as callers follow them at /v1/event/{id}/ and /v1/events/: asynchronous adds (the event
is the job) and the synchronous operations recorded beside them (deletes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mnemo.domain.memory import new_id, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.errors import NotFoundError
from mnemo.ports.tenancy_store import EventStore

ADD = "ADD"
DELETE = "DELETE"
EVENT_NOT_FOUND = "Event not found or you don't have permission to access it."


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
