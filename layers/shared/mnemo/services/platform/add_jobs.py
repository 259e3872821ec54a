"""A project's adds as jobs: each add is an event (its payload the add's JSON), run now or later by a worker.

An asynchronous add is acknowledged only after its event row (PENDING, with the whole add) is stored and queued
(an event that cannot be queued is stored FAILED and the caller told 503); the worker then takes it from the
queue, marks it RUNNING, and stores SUCCEEDED with the results or FAILED with the error. An error that passes
(the LLM or embedder throttled, timing out, down) puts the event back to PENDING and raises RetryLaterError,
unless it was the job's last attempt: the queue runs it again later. A synchronous add (infer=false) is run at
once and its event written once, when it ends.

An import (an IMPORT event: many conversations and memories, mnemo.services.platform.imports) is queued and run by
the same worker: `process` hands it to ImportJobs; a Dream run (a DREAM event, mnemo.services.platform.dream_runs)
to DreamJobs. A job CANCELLED meanwhile (POST /v1/event/{id}/cancel/) is not
run; an add cancelled while it ran keeps that status, with what it added as its results.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mnemo.domain.llm_usage import NO_USAGE, LLMUsage, as_counters
from mnemo.domain.memory import Event, LifecycleState, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent, Project
from mnemo.domain.webhooks import ERASED_TEXT
from mnemo.errors import MnemoError, ProviderError, UnavailableError
from mnemo.ports.tenancy_store import DirectoryStore, EventStore, ProjectRecordStore
from mnemo.services.commands import AddCommand, AddResult, Category
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.events import ADD, DREAM, IMPORT, event_id_of, new_event

if TYPE_CHECKING:
    from mnemo.services.platform.dream_runs import DreamJobs
    from mnemo.services.platform.imports import ImportJobs

log = logging.getLogger("mnemo.platform.worker")

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


def queue_job(
    events: EventStore,
    event: PlatformEvent,
    enqueue: Callable[[], None],
    clock: Callable[[], datetime],
    *,
    failed: str,
    unavailable: str,
) -> None:
    """Store a job's PENDING event, then queue it: acknowledged jobs are never lost. A job that cannot be queued
    ends FAILED with `failed` (an event nothing will run must not stay PENDING), and the caller gets a 503
    saying `unavailable`."""
    events.save_event(event)
    try:
        enqueue()
    except Exception as exc:
        log.exception("%s event %s of project %s could not be queued", event.event_type, event.id, event.project_id)
        moment = clock()
        events.save_event(
            event.changed(status=EventStatus.FAILED, error=failed, completed_at=moment, updated_at=moment)
        )
        raise UnavailableError(unavailable) from exc


def project_categories(project: Project) -> tuple[Category, ...]:
    """The project's custom categories, as (name, description) pairs."""
    return tuple((name, description) for entry in project.custom_categories for name, description in entry.items())


def with_project_settings(command: AddCommand, project: Project) -> AddCommand:
    """The call's own instructions and categories win; else the project's (categories replace, never merge): for
    the memories of an agent alone (an agent id and no user id), its agent_custom_instructions when it has them."""
    categories = command.custom_categories or project_categories(project)
    of_an_agent = command.scope.agent_id is not None and command.scope.user_id is None
    project_instructions = (of_an_agent and project.agent_custom_instructions) or project.custom_instructions
    return replace(
        command,
        instructions=command.instructions or project_instructions,
        custom_categories=categories,
        multilingual=project.multilingual,
        timestamp=whole_seconds(command.timestamp),
    )


def whole_seconds(moment: datetime | None) -> datetime | None:
    """A platform add's timestamp as its event keeps it: Unix seconds (0 is no timestamp), so that an add run at
    once and one run from its event make the same memory."""
    seconds = int(moment.timestamp()) if moment is not None else 0
    return datetime.fromtimestamp(seconds, tz=UTC) if seconds else None


def count_llm_usage(records: ProjectRecordStore, project_id: str, usage: LLMUsage) -> None:
    """Add an add's LLM usage to the project's counters (its statistics sum them): nothing when it made no call."""
    if usage.calls:
        for name, value in as_counters(usage).items():
            records.bump_counter(project_id, name, value)


def add_result_view(result: AddResult) -> dict[str, Any]:
    """One result of an add event: the memory's id, text, event and owner ids (never more)."""
    record = result.record
    removed = result.event is Event.DELETE and record.state is LifecycleState.ACTIVE  # deleted, not kept retired
    text = ERASED_TEXT if removed else record.text  # a deleted memory's text is erased: not kept in its event
    out: dict[str, Any] = {"id": record.id, "data": {"memory": text}, "event": result.event.value}
    out.update(record.scope.as_filter())
    return out


class AddJobs:
    def __init__(
        self,
        namespaces: NamespaceMemoryServices,
        directory: DirectoryStore,
        events: EventStore,
        records: ProjectRecordStore,
        enqueue: Enqueue | None = None,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self._namespaces = namespaces
        self._directory = directory
        self._events = events
        self._records = records
        self.enqueue: Enqueue = enqueue or self._process_now
        self._clock = clock
        from mnemo.services.platform.imports import ImportJobs  # which builds on this module

        self.imports: ImportJobs = ImportJobs(namespaces, directory, events, records, self.enqueue_job, clock=clock)
        self.dreams: DreamJobs | None = None  # Dream runs, once the composition root wires them

    def enqueue_job(self, project_id: str, event_id: str, owner: str) -> None:
        """Queue through `enqueue` as it is when called (a worker or a queue is wired after construction)."""
        self.enqueue(project_id, event_id, owner)

    def _process_now(self, project_id: str, event_id: str, _owner: str) -> None:
        """What queueing is without a queue: the add runs as it is submitted."""
        self.process(project_id, event_id)

    def submit(self, project: Project, command: AddCommand) -> PlatformEvent:
        """Store the PENDING event (the job itself), then queue it: acknowledged jobs are never lost."""
        command = with_project_settings(command, project)
        event = new_event(project.id, ADD, command.to_json(), self._clock())
        queue_job(
            self._events,
            event,
            lambda: self.enqueue(project.id, event.id, command.scope.owner()),
            self._clock,
            failed="The add could not be queued; nothing was stored. Send it again.",
            unavailable="The job queue is unavailable; nothing was stored. Retry shortly.",
        )
        return event

    def run_now(self, project: Project, command: AddCommand) -> PlatformEvent:
        """A synchronous add: the caller waits for it, so only its end is stored (one event write, not three:
        nothing was acknowledged before it is done). Its error, if any, is the caller's."""
        started = self._clock()
        command = with_project_settings(command, project)
        event = new_event(project.id, ADD, command.to_json(), started).changed(
            status=EventStatus.RUNNING, started_at=started, updated_at=started
        )
        return self._run(project.id, event, reraise=True, stored=False, command=command)

    def process(self, project_id: str, event_id: str, *, max_attempts: int = 1) -> PlatformEvent | None:
        """Run a stored add event (the worker's job), counting the attempt in the event. An error ends the event
        FAILED; an error that passes, before the event's `max_attempts`-th attempt, puts the event back to PENDING
        and raises RetryLaterError instead. None when the event or its project is gone. An event that has ended
        (done, or cancelled) is not run again; an import (`event_id` may name a later part of one,
        `<id>~<done>`) is run by ImportJobs."""
        event = self._events.get_event(project_id, event_id_of(event_id))
        if event is None or event.status.finished:
            return event
        project = self._directory.get_project(project_id)
        if project is None:
            return None
        if event.event_type == IMPORT:
            return self.imports.process(project_id, event, max_attempts=max_attempts)
        if event.event_type == DREAM:
            return self._dream(project, event, max_attempts)
        started = self._clock()
        event = event.changed(
            status=EventStatus.RUNNING, started_at=started, updated_at=started, attempts=event.attempts + 1
        )
        if not self._events.update_event(event):
            return None
        return self._run(project_id, event, reraise=False, retry=event.attempts < max_attempts)

    def _dream(self, project: Project, event: PlatformEvent, max_attempts: int) -> PlatformEvent | None:
        if self.dreams is None:  # a worker built without Dream (it cannot run): the run says so
            moment = self._clock()
            failed = event.changed(
                status=EventStatus.FAILED,
                error="This worker cannot run Dream runs.",
                completed_at=moment,
                updated_at=moment,
            )
            return failed if self._events.update_event(failed) else None
        return self.dreams.process(project, event, max_attempts=max_attempts)

    def _run(
        self,
        project_id: str,
        event: PlatformEvent,
        *,
        reraise: bool,
        retry: bool = False,
        stored: bool = True,
        command: AddCommand | None = None,
    ) -> PlatformEvent:
        """Add what a RUNNING event asks (`command`: its add, when the caller has it still; else read from the
        event), then store how it ended: SUCCEEDED with its results, or FAILED (or, with `retry` and an error that
        passes, PENDING again). `stored`: the event is stored already (else this writes it, once, at its end). The
        event's `llm_usage` adds this attempt's LLM calls to those of its earlier attempts, and the project's
        counters count them, whether the attempt succeeded or not (the tokens were spent)."""
        meter = UsageMeter()
        try:
            add = command if command is not None else AddCommand.from_json(event.payload)
            results = self._namespaces.memory_service(project_id).add(add, meter=meter)
        except Exception as exc:  # the worker must survive any job; the event says what went wrong
            event = self._spent(project_id, event, meter.usage)
            if retry and is_transient(exc):
                log.warning("add event %s of project %s will be retried: %s", event.id, project_id, exc)
                pending = event.changed(status=EventStatus.PENDING, updated_at=self._clock())
                written = self._end(project_id, pending, stored)
                if written is not None and written.status is EventStatus.PENDING:
                    raise RetryLaterError(event.id, str(exc)) from exc
                return written or pending  # cancelled meanwhile, or its project is gone: nothing to try again
            if not isinstance(exc, MnemoError):
                log.exception("add event %s of project %s failed", event.id, project_id)
            error = exc.message if isinstance(exc, MnemoError) else f"{type(exc).__name__}: {exc}"
            moment = self._clock()
            failed = event.changed(status=EventStatus.FAILED, error=error, completed_at=moment, updated_at=moment)
            written = self._end(project_id, failed, stored)
            if reraise:
                raise
            return written or failed
        event = self._spent(project_id, event, meter.usage)
        moment = self._clock()
        finished = event.changed(
            status=EventStatus.SUCCEEDED,
            results=[add_result_view(r) for r in results],
            completed_at=moment,
            updated_at=moment,
        )
        written = self._end(project_id, finished, stored)
        if written is not None and written.status is EventStatus.SUCCEEDED:
            self._records.bump_counter(project_id, "add_events")
        return written or finished

    def _spent(self, project_id: str, event: PlatformEvent, usage: LLMUsage) -> PlatformEvent:
        """The event with this attempt's LLM usage added to its own, now counted in the project's statistics."""
        count_llm_usage(self._records, project_id, usage)
        return event.changed(llm_usage=(event.llm_usage or NO_USAGE) + usage)

    def _end(self, project_id: str, event: PlatformEvent, stored: bool) -> PlatformEvent | None:
        """Store how the event ended; what was stored. An add cancelled while it ran stays CANCELLED, with what
        it added as its results (an add is not stopped halfway). Should its project have been deleted while the
        add ran (its events went with it), nothing is written back, and what the add stored goes too: None."""
        if not stored:
            self._events.save_event(event)
            return event
        latest = self._events.get_event(project_id, event.id)
        if latest is not None and latest.status is EventStatus.CANCELLED:
            event = latest.changed(
                results=event.results,
                started_at=latest.started_at or event.started_at,
                attempts=event.attempts,
                llm_usage=event.llm_usage,
                updated_at=event.updated_at,
            )
        if latest is not None and self._events.update_event(event):
            return event
        if self._directory.get_project(project_id) is None:
            log.warning(
                "project %s was deleted while its add event %s ran; dropping what it wrote", project_id, event.id
            )
            self._namespaces.drop(project_id)
        return None
