"""Asynchronous platform jobs (adds, imports, Dream runs) through a message queue (SQS on AWS, an in-process queue
locally): the message that names a stored PENDING job event, and how a job is queued as one.

The event row is the job (AddJobs.submit stores it before queueing), so the message carries ids only, never
memory text:

    {"kind": "platform.add", "version": 1, "job_id": "<event id>", "project_id": "<project id>",
     "event_id": "<event id>"}

Messages of one owner of one project share a message group, `<project id>/<owner>` (FIFO queues keep one user's
adds in order, while other users' run beside them); an import is an owner of its own (`import:<event id>`). A
long import runs in parts: a later part's message names `<event id>~<items done>` as its event_id (and so as
its job_id and deduplication id: each part is a job of its own). Running an event that has ended (done, or
cancelled) does nothing (a redelivered message), see jobs/router.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mnemo.errors import ValidationError
from mnemo.ports.queue import MessageQueue
from mnemo.services.platform.jobs.queueing import Enqueue

ADD_JOB_KIND = "platform.add"


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
