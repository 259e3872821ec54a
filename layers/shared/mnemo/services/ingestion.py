"""Asynchronous adds: an add is queued as a job message and a worker stores it later (on AWS, the SQS-triggered
ingestion function). This module defines the message and what submitting and processing one do.

The message, one JSON object (version 1):

    {"kind": "memory.add", "version": 1, "job_id": "<uuid>", "submitted_at": "<ISO 8601>",
     "add": {"messages": [{"role": "user", "content": "...", "name": null}],
             "user_id": "...", "agent_id": null, "run_id": null, "app_id": null,
             "metadata": {}, "infer": true, "expiration_date": null, "instructions": null,
             "procedural": false, "timestamp": null, "multilingual": false, "categories": []}}

Jobs of one user (else agent, else run) share a message group, so that a FIFO queue applies them in order.
The job id is what makes processing idempotent (the worker keeps each finished job's result for a while).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from mnemo.domain.memory import Scope, new_id, now
from mnemo.errors import ConfigurationError, ValidationError
from mnemo.ports.publisher import EventPublisher, TopicEvent
from mnemo.ports.queue import MessageQueue
from mnemo.services.commands import AddCommand, AddResult, Message
from mnemo.services.memory_service import MemoryService

ADD_JOB: Literal["memory.add"] = "memory.add"
ADD_COMPLETED = "memory.add.completed"  # published when a queued add is stored: ids and events, never text


class _JobMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: str
    content: str
    name: str | None = None


class AddJobBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    messages: list[_JobMessage] = Field(min_length=1)
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    infer: bool = True
    expiration_date: date | None = None
    instructions: str | None = None
    procedural: bool = False
    timestamp: datetime | None = None
    multilingual: bool = False
    categories: list[str] = Field(default_factory=list)


class AddJobMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["memory.add"]
    version: Literal[1] = 1
    job_id: str = Field(min_length=1)
    submitted_at: datetime
    add: AddJobBody


def add_job_message(command: AddCommand, job_id: str, submitted_at: datetime) -> dict[str, Any]:
    """The queue message of an add."""
    body = AddJobBody(
        messages=[_JobMessage(role=m.role, content=m.content, name=m.name) for m in command.messages],
        **command.scope.as_dict(),
        metadata=command.metadata,
        infer=command.infer,
        expiration_date=command.expiration_date,
        instructions=command.instructions,
        procedural=command.procedural,
        timestamp=command.timestamp,
        multilingual=command.multilingual,
        categories=list(command.categories),
    )
    message = AddJobMessage(kind=ADD_JOB, job_id=job_id, submitted_at=submitted_at, add=body)
    return message.model_dump(mode="json")


def parse_add_job(raw: Mapping[str, Any]) -> tuple[str, AddCommand]:
    """The job id and the add of a queue message; ValidationError says what is wrong with a malformed one."""
    try:
        message = AddJobMessage.model_validate(raw)
    except PydanticValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}" for e in exc.errors())
        raise ValidationError(f"Not an add job message: {problems}.") from exc
    body = message.add
    command = AddCommand(
        messages=[Message(m.role, m.content, m.name) for m in body.messages],
        scope=Scope(user_id=body.user_id, agent_id=body.agent_id, run_id=body.run_id, app_id=body.app_id),
        metadata=body.metadata,
        infer=body.infer,
        expiration_date=body.expiration_date,
        instructions=body.instructions,
        procedural=body.procedural,
        timestamp=body.timestamp,
        multilingual=body.multilingual,
        categories=tuple(body.categories),
    )
    return message.job_id, command


def message_group(scope: Scope) -> str:
    """Jobs of one owner are applied in the order they were submitted (FIFO queues keep order per group)."""
    for name, value in (("user", scope.user_id), ("agent", scope.agent_id), ("run", scope.run_id)):
        if value:
            return f"{name}:{value}"
    return "none"


def result_summary(job_id: str, results: list[AddResult]) -> dict[str, Any]:
    """What a finished job reports: each memory's id and event, never its text."""
    return {"job_id": job_id, "results": [{"id": r.record.id, "event": r.event.value} for r in results]}


class IngestionService:
    def __init__(
        self,
        memories: MemoryService,
        queue: MessageQueue | None,
        publisher: EventPublisher | None = None,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self._memories = memories
        self._queue = queue
        self._publisher = publisher
        self._clock = clock

    def submit(self, command: AddCommand, job_id: str | None = None) -> str:
        """Queue an add for the worker and return its job id. The add is checked first (an add without an owner
        is a ValidationError here, not a failed job later)."""
        if self._queue is None:
            raise ConfigurationError("No job queue is configured (MNEMO_QUEUE_URL).")
        if command.scope.is_empty():
            raise ValidationError("At least one identifier (user_id, agent_id, run_id) is required.")
        job_id = job_id or new_id()
        self._queue.send(add_job_message(command, job_id, self._clock()), group=message_group(command.scope))
        return job_id

    def process(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Store one queued add; returns its summary and publishes it (when a publisher is configured)."""
        job_id, command = parse_add_job(raw)
        summary = result_summary(job_id, self._memories.add(command))
        if self._publisher is not None:
            self._publisher.publish(TopicEvent(type=ADD_COMPLETED, data=summary))
        return summary
