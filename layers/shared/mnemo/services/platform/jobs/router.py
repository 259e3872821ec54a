"""One router for the platform's jobs: the worker (the local add worker, or the ingest function on AWS) hands it
the event a queue message names, and it runs that event with the handler of its kind (an add, an import, a Dream
run). The composition root builds it from the handlers; no handler knows another.

An event that has ended (done, or cancelled) is not run again (a redelivered message), and one whose project is
gone is not run at all. A message may name a later part of a long job, `<event id>~<items done>`: the event is
the same, and its handler goes on from what it recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from mnemo.domain.tenancy import PlatformEvent, Project
from mnemo.ports.tenancy_store import DirectoryStore, EventStore
from mnemo.services.platform.tenancy.events import ADD, event_id_of


class JobHandler(Protocol):
    def process(self, project: Project, event: PlatformEvent, *, max_attempts: int = 1) -> PlatformEvent | None:
        """Run an unfinished event of an existing project; what was stored of it (None: it is gone)."""
        ...


class JobRecords(EventStore, DirectoryStore, Protocol):
    """Where a job is looked up: its event, and its project (the tenancy store is both)."""


def runnable(
    events: EventStore, directory: DirectoryStore, project_id: str, event_id: str
) -> tuple[Project | None, PlatformEvent | None]:
    """The project and the stored event a message names; (None, the event) when it has ended, (None, None) when
    it or its project is gone."""
    event = events.get_event(project_id, event_id_of(event_id))
    if event is None or event.status.finished:
        return None, event
    project = directory.get_project(project_id)
    return (project, event) if project is not None else (None, None)


def run_stored(
    events: EventStore, directory: DirectoryStore, handler: JobHandler, project_id: str, event_id: str
) -> PlatformEvent | None:
    """Run the event a message names with `handler` (what queueing is without a queue: a job runs as it is
    submitted)."""
    project, event = runnable(events, directory, project_id, event_id)
    if project is None or event is None:
        return event
    return handler.process(project, event)


class JobRouter:
    def __init__(self, events: EventStore, directory: DirectoryStore, handlers: Mapping[str, JobHandler]) -> None:
        """`handlers` by event type; an event of a type with no handler of its own is run as an add (ADD's)."""
        self._events = events
        self._directory = directory
        self._handlers = dict(handlers)

    def process(self, project_id: str, event_id: str, *, max_attempts: int = 1) -> PlatformEvent | None:
        """Run the stored event a message names, counting the attempt in the event. An error that passes, before
        the event's `max_attempts`-th attempt, puts it back to PENDING and raises RetryLaterError. None when the
        event or its project is gone; an ended event as it is."""
        project, event = runnable(self._events, self._directory, project_id, event_id)
        if project is None or event is None:
            return event
        handler = self._handlers.get(event.event_type) or self._handlers[ADD]
        return handler.process(project, event, max_attempts=max_attempts)
