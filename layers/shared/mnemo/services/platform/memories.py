"""A project's memories on the platform: adds (asynchronous through events, or synchronous), the project's
settings applied to extraction, and the events callers follow at /v1/event/{id}/.

An asynchronous add is acknowledged only after its event row (PENDING, with the whole request) is stored and
queued (an event that cannot be queued is stored FAILED and the caller told 503); the worker then takes it from
the queue, marks it RUNNING, and stores SUCCEEDED with the results or FAILED with the error. An error that passes
(the LLM or embedder throttled, timing out, down) puts the event back to PENDING and raises RetryLaterError,
unless it was the job's last attempt: the queue runs it again later. At start-up (the local worker) every
PENDING or RUNNING event is queued again, so a job survives a restart.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Protocol

from mnemo.domain.memory import Scope, new_id, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent, Project
from mnemo.domain.text import keywords
from mnemo.errors import MnemoError, ProviderError, UnavailableError
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.ports.tenancy_store import TenancyStore
from mnemo.services.commands import AddCommand, AddResult, Message, check_add_size
from mnemo.services.ingestion import message_group
from mnemo.services.memory_service import MemoryService

log = logging.getLogger("mnemo.platform.worker")

ADD = "ADD"
DELETE = "DELETE"

# How an add event is queued: (project id, event id, owner). The owner (`user:<id>`, `agent:<id>`, `run:<id>`)
# orders a queue: one owner's adds run in the order they were sent, other owners' beside them.
Enqueue = Callable[[str, str, str], None]

# Provider failures that pass: the job is worth running again a little later.
TRANSIENT_PROVIDER_ERRORS = frozenset({"provider_timeout", "provider_unavailable", "provider_rate_limited"})


class RetryLaterError(Exception):
    """A job failed for a reason that passes; its event is PENDING again, for the queue to run it later."""

    def __init__(self, event_id: str, reason: str) -> None:
        super().__init__(f"event {event_id} will be retried: {reason}")
        self.event_id = event_id
        self.reason = reason


def is_transient(exc: BaseException) -> bool:
    return isinstance(exc, ProviderError) and exc.code in TRANSIENT_PROVIDER_ERRORS


@dataclass(frozen=True, slots=True)
class AddRequest:
    """One platform add, with the project's settings already applied (what the event row keeps)."""

    messages: list[Message]
    scope: Scope
    metadata: dict[str, Any] = field(default_factory=dict)
    infer: bool = True
    expiration_date: date | None = None
    instructions: str | None = None
    categories: list[dict[str, str]] = field(default_factory=list)
    multilingual: bool = False
    timestamp: datetime | None = None

    def __post_init__(self) -> None:
        check_add_size(self.messages, self.metadata)  # before an event stores it, not when the worker runs it

    def payload(self) -> dict[str, Any]:
        return {
            "messages": [{"role": m.role, "content": m.content, "name": m.name} for m in self.messages],
            **{k: v for k, v in self.scope.as_dict().items() if v is not None},
            "metadata": self.metadata,
            "infer": self.infer,
            "expiration_date": self.expiration_date.isoformat() if self.expiration_date else None,
            "custom_instructions": self.instructions,
            "custom_categories": self.categories,
            "multilingual": self.multilingual,
            "timestamp": int(self.timestamp.timestamp()) if self.timestamp else None,
        }

    @classmethod
    def from_payload(cls, raw: dict[str, Any]) -> AddRequest:
        return cls(
            messages=[Message(m["role"], m["content"], m.get("name")) for m in raw["messages"]],
            scope=Scope(
                user_id=raw.get("user_id"),
                agent_id=raw.get("agent_id"),
                run_id=raw.get("run_id"),
                app_id=raw.get("app_id"),
            ),
            metadata=raw.get("metadata") or {},
            infer=bool(raw.get("infer", True)),
            expiration_date=date.fromisoformat(raw["expiration_date"]) if raw.get("expiration_date") else None,
            instructions=raw.get("custom_instructions"),
            categories=list(raw.get("custom_categories") or []),
            multilingual=bool(raw.get("multilingual")),
            timestamp=datetime.fromtimestamp(raw["timestamp"], tz=UTC) if raw.get("timestamp") else None,
        )

    def command(self) -> AddCommand:
        return AddCommand(
            messages=self.messages,
            scope=self.scope,
            metadata=self.metadata,
            infer=self.infer,
            expiration_date=self.expiration_date,
            instructions=_instructions(self.instructions, self.categories),
            timestamp=self.timestamp,
            multilingual=self.multilingual,
            categories=categorize(" ".join(m.content for m in self.messages if m.role != "system"), self.categories),
        )


def with_project_settings(request: AddRequest, project: Project) -> AddRequest:
    """The call's own instructions and categories win; else the project's (categories replace, never merge)."""
    return AddRequest(
        messages=request.messages,
        scope=request.scope,
        metadata=request.metadata,
        infer=request.infer,
        expiration_date=request.expiration_date,
        instructions=request.instructions or project.custom_instructions,
        categories=request.categories or list(project.custom_categories),
        multilingual=project.multilingual,
        timestamp=request.timestamp,
    )


def _instructions(instructions: str | None, categories: list[dict[str, str]]) -> str | None:
    if not categories:
        return instructions
    listed = "\n".join(f"- {name}: {text}" for entry in categories for name, text in entry.items())
    return f"{instructions or ''}\nThe project's memory categories:\n{listed}".strip()


def categorize(text: str, categories: list[dict[str, str]]) -> tuple[str, ...]:
    """The custom categories whose name or description shares a content word with the text."""
    words = set(keywords(text))
    found: list[str] = []
    for entry in categories:
        for name, description in entry.items():
            if words & set(keywords(f"{name.replace('_', ' ')} {description}")):
                found.append(name)
    return tuple(found)


def add_result_view(result: AddResult) -> dict[str, Any]:
    record = result.record
    out: dict[str, Any] = {"id": record.id, "data": {"memory": record.text}, "event": result.event.value}
    for name, value in record.scope.as_dict().items():
        if value is not None:
            out[name] = value
    return out


class ProjectMemories:
    def __init__(
        self,
        namespaces: MemoryNamespaces,
        store: TenancyStore,
        enqueue: Enqueue | None = None,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self.namespaces = namespaces
        self.store = store
        self.enqueue: Enqueue = enqueue or (lambda _project, _event, _owner: None)
        self._clock = clock

    def engine(self, project_id: str) -> MemoryService:
        return self.namespaces.memories(project_id)

    def submit_add(self, project: Project, request: AddRequest) -> PlatformEvent:
        """Store the PENDING event (the job itself), then queue it: acknowledged jobs are never lost."""
        event = self._new_event(project.id, ADD, with_project_settings(request, project).payload())
        self.store.save_event(event)
        try:
            self.enqueue(project.id, event.id, message_group(request.scope))
        except Exception as exc:  # an event nothing will run must not stay PENDING
            log.exception("add event %s of project %s could not be queued", event.id, project.id)
            moment = self._clock()
            error = "The add could not be queued; nothing was stored. Send it again."
            self.store.save_event(
                event.changed(status=EventStatus.FAILED, error=error, completed_at=moment, updated_at=moment)
            )
            raise UnavailableError("The job queue is unavailable; nothing was stored. Retry shortly.") from exc
        return event

    def add_now(self, project: Project, request: AddRequest) -> tuple[PlatformEvent, list[dict[str, Any]]]:
        """A synchronous add (infer=false): the caller waits for it, so only its end is stored (one event
        write, not three: nothing was acknowledged before it is done)."""
        started = self._clock()
        event = self._new_event(project.id, ADD, with_project_settings(request, project).payload()).changed(
            status=EventStatus.RUNNING, started_at=started, updated_at=started
        )
        finished = self._run(project.id, event, reraise=True, stored=False)
        return finished, finished.results

    def process(
        self, project_id: str, event_id: str, *, reraise: bool = False, max_attempts: int = 1
    ) -> PlatformEvent | None:
        """Run a stored add event (the worker's job), counting the attempt in the event. An error ends the event
        FAILED; it escapes only with `reraise`. An error that passes, before the event's `max_attempts`-th
        attempt, puts the event back to PENDING and raises RetryLaterError instead. None when the event or its
        project is gone."""
        event = self.store.get_event(project_id, event_id)
        if event is None or event.status in (EventStatus.SUCCEEDED, EventStatus.FAILED):
            return event
        if self.store.get_project(project_id) is None:
            return None
        started = self._clock()
        event = event.changed(
            status=EventStatus.RUNNING, started_at=started, updated_at=started, attempts=event.attempts + 1
        )
        if not self.store.update_event(event):
            return None
        return self._run(project_id, event, reraise=reraise, retry=event.attempts < max_attempts)

    def _run(
        self, project_id: str, event: PlatformEvent, *, reraise: bool, retry: bool = False, stored: bool = True
    ) -> PlatformEvent:
        """Add what a RUNNING event asks, then store how it ended: SUCCEEDED with its results, or FAILED (or,
        with `retry` and an error that passes, PENDING again). `stored`: the event is stored already (else this
        writes it, once, at its end)."""
        try:
            results = self.engine(project_id).add(AddRequest.from_payload(event.payload).command())
        except Exception as exc:  # the worker must survive any job; the event says what went wrong
            if retry and is_transient(exc):
                log.warning("add event %s of project %s will be retried: %s", event.id, project_id, exc)
                pending = event.changed(status=EventStatus.PENDING, updated_at=self._clock())
                if self._end(project_id, pending, stored):
                    raise RetryLaterError(event.id, str(exc)) from exc
                return pending  # its project is gone: nothing to try again
            if not isinstance(exc, MnemoError):
                log.exception("add event %s of project %s failed", event.id, project_id)
            error = exc.message if isinstance(exc, MnemoError) else f"{type(exc).__name__}: {exc}"
            moment = self._clock()
            failed = event.changed(status=EventStatus.FAILED, error=error, completed_at=moment, updated_at=moment)
            self._end(project_id, failed, stored)
            if reraise:
                raise
            return failed
        moment = self._clock()
        finished = event.changed(
            status=EventStatus.SUCCEEDED,
            results=[add_result_view(r) for r in results],
            completed_at=moment,
            updated_at=moment,
        )
        if self._end(project_id, finished, stored):
            self.store.bump_counter(project_id, "add_events")
        return finished

    def _end(self, project_id: str, event: PlatformEvent, stored: bool) -> bool:
        """Store how the event ended. Should its project have been deleted while the add ran (its events went
        with it), nothing is written back, and what the add stored goes too: False."""
        if not stored:
            self.store.save_event(event)
            return True
        if self.store.update_event(event):
            return True
        if self.store.get_project(project_id) is None:
            log.warning(
                "project %s was deleted while its add event %s ran; dropping what it wrote", project_id, event.id
            )
            self.namespaces.drop(project_id)
        return False

    def record(self, project_id: str, event_type: str, payload: dict[str, Any], results: list[dict[str, Any]]) -> str:
        """A synchronous operation's event, stored SUCCEEDED (deletes): its id is what the caller is told."""
        moment = self._clock()
        event = self._new_event(project_id, event_type, payload).changed(
            status=EventStatus.SUCCEEDED, results=results, started_at=moment, completed_at=moment
        )
        self.store.save_event(event)
        return event.id

    def _new_event(self, project_id: str, event_type: str, payload: dict[str, Any]) -> PlatformEvent:
        moment = self._clock()
        return PlatformEvent(
            id=new_id(),
            project_id=project_id,
            event_type=event_type,
            status=EventStatus.PENDING,
            payload=payload,
            created_at=moment,
            updated_at=moment,
        )


class _Received(Protocol):
    @property
    def body(self) -> dict[str, Any]: ...


class LocalQueue(Protocol):
    """What the local worker needs of a queue (mnemo.adapters.inprocess.queue.InProcessQueue)."""

    def send(self, message: Mapping[str, Any], *, group: str | None = None, dedup_id: str | None = None) -> str: ...

    def receive(self, max_messages: int = 10, wait_seconds: float = 0.0) -> Sequence[_Received]: ...

    def __len__(self) -> int: ...


LOCAL_RETRY_DELAYS = (1.0, 2.0, 4.0, 8.0)  # seconds before each new attempt after an error that passes


class AddWorker:
    """The local worker: a thread that runs queued add events one at a time, in the order they were queued. An
    add that fails for a reason that passes is tried again after each of `retry_delays`, before the next one."""

    def __init__(
        self, memories: ProjectMemories, queue: LocalQueue, retry_delays: Sequence[float] = LOCAL_RETRY_DELAYS
    ) -> None:
        self._memories = memories
        self._queue = queue
        self._retry_delays = tuple(retry_delays)
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        memories.enqueue = self.enqueue

    def enqueue(self, project_id: str, event_id: str, owner: str = "") -> None:
        """One queue, run in order: the owner does not matter here."""
        self._queue.send({"project_id": project_id, "event_id": event_id})

    def start(self) -> None:
        for event in self._memories.store.unfinished_events():
            self.enqueue(event.project_id, event.id)
        self._thread = threading.Thread(target=self._run, name="mnemo-platform-worker", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.is_set():
            for message in self._queue.receive(max_messages=10, wait_seconds=0.2):
                if self._stopped.is_set():
                    return
                self._process(message.body["project_id"], message.body["event_id"])

    def _process(self, project_id: str, event_id: str) -> None:
        """Run the event, and again after each delay while it fails for a reason that passes (its attempts are
        counted in the event: the last one ends it FAILED rather than raising)."""
        attempts = len(self._retry_delays) + 1
        for delay in (*self._retry_delays, 0.0):
            try:
                self._memories.process(project_id, event_id, max_attempts=attempts)
                return
            except RetryLaterError:
                if self._stopped.wait(delay):
                    return  # stopping: the event is PENDING, and queued again at the next start

    def drain(self, timeout: float = 30.0) -> None:
        """Wait until the queue is empty (tests and shutdown)."""
        deadline = now().timestamp() + timeout
        while len(self._queue) and now().timestamp() < deadline:
            self._stopped.wait(0.05)

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
