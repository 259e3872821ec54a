"""Asynchronous platform adds through a message queue (SQS on AWS): the message that names a stored PENDING
event, and how a queue worker runs it.

The event row is the job (ProjectMemories.submit_add stores it before queueing), so the message carries ids
only, never memory text:

    {"kind": "platform.add", "version": 1, "job_id": "<event id>", "project_id": "<project id>",
     "event_id": "<event id>"}

Messages of one owner of one project share a message group, `<project id>/<owner>` (FIFO queues keep one user's
adds in order, while other users' run beside them). Running an event
that is already SUCCEEDED or FAILED does nothing (a redelivered message), see ProjectMemories.process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from mnemo.domain.memory import now
from mnemo.domain.tenancy import PlatformEvent
from mnemo.ports.queue import MessageQueue
from mnemo.ports.tenancy_store import TenancyStore
from mnemo.services.ingestion import message_group
from mnemo.services.platform.memories import ADD, AddRequest, Enqueue, ProjectMemories

PLATFORM_ADD_JOB = "platform.add"
log = logging.getLogger("mnemo.platform.jobs")


def platform_add_message(project_id: str, event_id: str) -> dict[str, Any]:
    return {"kind": PLATFORM_ADD_JOB, "version": 1, "job_id": event_id, "project_id": project_id, "event_id": event_id}


def is_platform_job(raw: Mapping[str, Any]) -> bool:
    return raw.get("kind") == PLATFORM_ADD_JOB


def queue_enqueuer(queue: MessageQueue) -> Enqueue:
    """ProjectMemories.enqueue for a queue: one message per event, grouped by the project and the add's owner,
    deduplicated by event."""
    fifo = bool(getattr(queue, "fifo", False))

    def enqueue(project_id: str, event_id: str, owner: str) -> None:
        message = platform_add_message(project_id, event_id)
        queue.send(message, group=f"{project_id}/{owner}", dedup_id=event_id if fifo else None)

    return enqueue


def process_platform_job(memories: ProjectMemories, raw: Mapping[str, Any], *, max_attempts: int = 1) -> dict[str, Any]:
    """Run the event a message names; the summary (ids and status, never text) is what a jobs table keeps.
    Before the event's `max_attempts`-th attempt, an error that passes raises RetryLaterError (the queue delivers
    the job again)."""
    if (
        not is_platform_job(raw)
        or not isinstance(raw.get("project_id"), str)
        or not isinstance(raw.get("event_id"), str)
    ):
        raise ValueError("Not a platform add job: expected kind, project_id and event_id.")
    event = memories.process(raw["project_id"], raw["event_id"], max_attempts=max_attempts)
    return {
        "job_id": raw.get("job_id", raw["event_id"]),
        "event_id": raw["event_id"],
        "status": None if event is None else event.status.value,
        "results": [] if event is None else [{"id": r.get("id"), "event": r.get("event")} for r in event.results],
    }


def requeue_unfinished(
    store: TenancyStore, enqueue: Enqueue, older_than: timedelta, clock: Callable[[], datetime] = now
) -> list[PlatformEvent]:
    """Queue again every add event still PENDING or RUNNING that has not changed for `older_than`: one whose
    message was lost (a worker that died on its last attempt, a dead-lettered message redriven elsewhere). Running
    an event twice is safe: a finished one is skipped, and a rerun add finds what it stored (`mnemo platform
    resume`). Returns the events queued."""
    cutoff = clock() - older_than
    stale = [e for e in store.unfinished_events() if e.event_type == ADD and e.updated_at <= cutoff]
    for event in stale:
        try:
            owner = message_group(AddRequest.from_payload(event.payload).scope)
        except Exception:  # a payload this version would refuse: it still runs (and says so), in its own group
            log.warning(
                "add event %s of project %s: payload unreadable, queued as ownerless", event.id, event.project_id
            )
            owner = "none"
        enqueue(event.project_id, event.id, owner)
    return stale
