"""Asynchronous platform jobs (adds and imports) through a message queue (SQS on AWS, an in-process queue locally):
the message that names a stored PENDING job event, and running what a message names.

The event row is the job (AddJobs.submit stores it before queueing), so the message carries ids only, never
memory text:

    {"kind": "platform.add", "version": 1, "job_id": "<event id>", "project_id": "<project id>",
     "event_id": "<event id>"}

Messages of one owner of one project share a message group, `<project id>/<owner>` (FIFO queues keep one user's
adds in order, while other users' run beside them); an import is an owner of its own (`import:<event id>`). A
long import runs in parts: a later part's message names `<event id>~<items done>` as its event_id (and so as
its job_id and deduplication id: each part is a job of its own). Running an event that has ended (done, or
cancelled) does nothing (a redelivered message), see AddJobs.process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from mnemo.domain.memory import now
from mnemo.domain.tenancy import PlatformEvent
from mnemo.errors import ValidationError
from mnemo.ports.queue import MessageQueue
from mnemo.ports.tenancy_store import EventStore
from mnemo.services.commands import AddCommand
from mnemo.services.platform.add_jobs import AddJobs, Enqueue
from mnemo.services.platform.dream_runs import DREAM_OWNER
from mnemo.services.platform.events import ADD, DREAM, IMPORT, event_id_of
from mnemo.services.platform.imports import owner_of

ADD_JOB_KIND = "platform.add"
log = logging.getLogger("mnemo.platform.jobs")


@dataclass(frozen=True, slots=True)
class AddJob:
    """The queue message of one add event."""

    project_id: str
    event_id: str

    @property
    def job_id(self) -> str:
        return self.event_id

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": ADD_JOB_KIND,
            "version": 1,
            "job_id": self.job_id,
            "project_id": self.project_id,
            "event_id": self.event_id,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> AddJob:
        project_id, event_id = raw.get("project_id"), raw.get("event_id")
        if raw.get("kind") != ADD_JOB_KIND or not isinstance(project_id, str) or not isinstance(event_id, str):
            raise ValidationError("Not a platform add job: expected kind, project_id and event_id.")
        return cls(project_id, event_id)


def queue_enqueuer(queue: MessageQueue) -> Enqueue:
    """AddJobs.enqueue for a queue: one message per event, grouped by the project and the add's owner,
    deduplicated by event."""
    fifo = bool(getattr(queue, "fifo", False))

    def enqueue(project_id: str, event_id: str, owner: str) -> None:
        message = AddJob(project_id, event_id).to_json()
        queue.send(message, group=f"{project_id}/{owner}", dedup_id=event_id if fifo else None)

    return enqueue


class JobService:
    """What a queue worker does with each message it receives."""

    def __init__(self, adds: AddJobs, *, max_attempts: int = 1) -> None:
        self._adds = adds
        self._max_attempts = max_attempts

    def run(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Run the job a message names; its summary (ids and status, never text) is what a jobs table keeps.
        Before the event's last attempt, an error that passes raises RetryLaterError (the queue delivers the job
        again); a message that is not a job is a ValidationError."""
        job = AddJob.from_json(raw)
        event = self._adds.process(job.project_id, job.event_id, max_attempts=self._max_attempts)
        return {
            "job_id": job.job_id,
            "event_id": event_id_of(job.event_id),
            "status": None if event is None else event.status.value,
            "results": [] if event is None else _summary(event),
        }


def _summary(event: PlatformEvent) -> list[dict[str, Any]]:
    """An event's results without text: an add's memories (id, event), an import's items (index, status), a Dream
    run's users (user_id, status)."""
    keys = {IMPORT: ("index", "status"), DREAM: ("user_id", "status")}.get(event.event_type, ("id", "event"))
    return [{key: r.get(key) for key in keys} for r in event.results]


def requeue_unfinished(
    events: EventStore, enqueue: Enqueue, older_than: timedelta, clock: Callable[[], datetime] = now
) -> list[PlatformEvent]:
    """Queue again every add, import and Dream run event still PENDING or RUNNING that has not changed for
    `older_than`: one whose message was lost (a worker that died on its last attempt, a dead-lettered message
    redriven elsewhere). Running an event twice is safe: a finished one is skipped, a rerun add finds what it stored,
    and a rerun import or Dream run goes on from the items or users it recorded (`mnemo platform resume`). Returns
    the events queued."""
    cutoff = clock() - older_than
    stale = [e for e in events.unfinished_events() if e.event_type in (ADD, IMPORT, DREAM) and e.updated_at <= cutoff]
    for event in stale:
        enqueue(event.project_id, event.id, _owner(event))
    return stale


def _owner(event: PlatformEvent) -> str:
    if event.event_type == IMPORT:
        return owner_of(event.id)
    if event.event_type == DREAM:
        return DREAM_OWNER
    try:
        return AddCommand.from_json(event.payload).scope.owner()
    except ValidationError:  # a payload this version would refuse: it still runs (and says so), ownerless
        log.warning("add event %s of project %s: payload unreadable, queued as ownerless", event.id, event.project_id)
        return "none"
