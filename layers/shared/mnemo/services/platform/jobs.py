"""Asynchronous platform adds through a message queue (SQS on AWS): the message that names a stored PENDING
event, and how a queue worker runs it.

The event row is the job (ProjectMemories.submit_add stores it before queueing), so the message carries ids
only, never memory text:

    {"kind": "platform.add", "version": 1, "job_id": "<event id>", "project_id": "<project id>",
     "event_id": "<event id>"}

Messages of one project share a message group (FIFO queues keep a project's adds in order). Running an event
that is already SUCCEEDED or FAILED does nothing (a redelivered message), see ProjectMemories.process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mnemo.ports.queue import MessageQueue
from mnemo.services.platform.memories import ProjectMemories

PLATFORM_ADD_JOB = "platform.add"


def platform_add_message(project_id: str, event_id: str) -> dict[str, Any]:
    return {"kind": PLATFORM_ADD_JOB, "version": 1, "job_id": event_id, "project_id": project_id, "event_id": event_id}


def is_platform_job(raw: Mapping[str, Any]) -> bool:
    return raw.get("kind") == PLATFORM_ADD_JOB


def queue_enqueuer(queue: MessageQueue) -> Callable[[str, str], None]:
    """ProjectMemories.enqueue for a queue: one message per event, grouped by project, deduplicated by event."""
    fifo = bool(getattr(queue, "fifo", False))

    def enqueue(project_id: str, event_id: str) -> None:
        queue.send(platform_add_message(project_id, event_id), group=project_id, dedup_id=event_id if fifo else None)

    return enqueue


def process_platform_job(memories: ProjectMemories, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Run the event a message names; the summary (ids and status, never text) is what a jobs table keeps."""
    if (
        not is_platform_job(raw)
        or not isinstance(raw.get("project_id"), str)
        or not isinstance(raw.get("event_id"), str)
    ):
        raise ValueError("Not a platform add job: expected kind, project_id and event_id.")
    event = memories.process(raw["project_id"], raw["event_id"])
    return {
        "job_id": raw.get("job_id", raw["event_id"]),
        "event_id": raw["event_id"],
        "status": None if event is None else event.status.value,
        "results": [] if event is None else [{"id": r.get("id"), "event": r.get("event")} for r in event.results],
    }
