"""A project's adds as jobs: each add is an event (its payload the add's JSON), run now or later by a worker.

An asynchronous add is acknowledged only after its event row (PENDING, with the whole add) is stored and queued
(an event that cannot be queued is stored FAILED and the caller told 503); the worker then takes it from the
queue, marks it RUNNING, and stores SUCCEEDED with the results or FAILED with the error. An error that passes
(the LLM or embedder throttled, timing out, down) puts the event back to PENDING and raises RetryLaterError,
unless it was the job's last attempt: the queue runs it again later. A synchronous add (infer=false) is run at
once and its event written once, when it ends. A rerun writes again the index documents of the memories it
found stored already (memories/index_heal.py): an earlier attempt may have stored one whose index write then
failed, and the rerun answers it NONE, writing nothing.

The worker hands each stored event to the JobRouter (jobs/router.py), which runs an add here, an import in
ImportJobs and a Dream run in DreamJobs. A job CANCELLED meanwhile (POST /v1/event/{id}/cancel/) is not
run; an add cancelled while it ran keeps that status, with what it added as its results.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from mnemo.domain.llm_usage import NO_USAGE, LLMUsage, as_counters
from mnemo.domain.memory import Event, LifecycleState, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent, Project
from mnemo.domain.webhooks import ERASED_TEXT
from mnemo.errors import MnemoError
from mnemo.ports.tenancy_store import DirectoryStore, EventStore, ProjectRecordStore
from mnemo.services.commands import AddCommand, AddResult
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.jobs.project_settings import with_project_settings
from mnemo.services.platform.jobs.queueing import Enqueue, RetryLaterError, is_transient, queue_job
from mnemo.services.platform.jobs.router import run_stored
from mnemo.services.platform.memories.index_heal import reindex_memories
from mnemo.services.platform.tenancy.events import ADD, new_event

log = logging.getLogger("mnemo.platform.worker")


# How an add event is queued: (project id, event id, owner). The owner (`user:<id>`, `agent:<id>`, `run:<id>`)
# orders a queue: one owner's adds run in the order they were sent, other owners' beside them.
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
        """`enqueue`: the job queue (None: an add runs as it is submitted)."""
        self._namespaces = namespaces
        self._directory = directory
        self._events = events
        self._records = records
        self._enqueue: Enqueue = enqueue or self._process_now
        self._clock = clock

    def _process_now(self, project_id: str, event_id: str, _owner: str) -> None:
        """What queueing is without a queue: the add runs as it is submitted."""
        run_stored(self._events, self._directory, self, project_id, event_id)

    def submit(self, project: Project, command: AddCommand) -> PlatformEvent:
        """Store the PENDING event (the job itself), then queue it: acknowledged jobs are never lost."""
        command = with_project_settings(command, project)
        event = new_event(project.id, ADD, command.to_json(), self._clock())
        queue_job(
            self._events,
            event,
            lambda: self._enqueue(project.id, event.id, command.scope.owner()),
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

    def process(self, project: Project, event: PlatformEvent, *, max_attempts: int = 1) -> PlatformEvent | None:
        """Run a stored, unfinished add event of an existing project (the worker's job, through the JobRouter),
        counting the attempt in the event. An error ends the event FAILED; an error that passes, before the event's
        `max_attempts`-th attempt, puts the event back to PENDING and raises RetryLaterError instead. None when the
        event is gone."""
        started = self._clock()
        event = event.changed(
            status=EventStatus.RUNNING, started_at=started, updated_at=started, attempts=event.attempts + 1
        )
        if not self._events.update_event(event):
            return None
        return self._run(project.id, event, reraise=False, retry=event.attempts < max_attempts)

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
            results = self._added(project_id, event, add, meter)
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

    def _added(self, project_id: str, event: PlatformEvent, add: AddCommand, meter: UsageMeter) -> list[AddResult]:
        """The add's results. On a rerun, the memories it found stored already (NONE) are indexed again: an earlier
        attempt may have stored one and then failed to index it."""
        service = self._namespaces.memory_service(project_id)
        results = service.add(add, meter=meter)
        if event.attempts > 1:
            reindex_memories(service, [r.record.id for r in results if r.event is Event.NONE])
        return results

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
        for _attempt in range(2):  # a cancel between the read and the write is met by the store's status rule
            latest = self._events.get_event(project_id, event.id)
            if latest is None:
                break
            written = _kept_cancel(latest, event)
            if self._events.update_event(written):
                return written
        if self._directory.get_project(project_id) is None:
            log.warning(
                "project %s was deleted while its add event %s ran; dropping what it wrote", project_id, event.id
            )
            self._namespaces.drop(project_id)
        return None


def _kept_cancel(latest: PlatformEvent, event: PlatformEvent) -> PlatformEvent:
    """What to store of an add's end: the end itself, or, when it was CANCELLED while it ran, the cancel kept with
    what the add did (its results, attempts and LLM usage)."""
    if latest.status is not EventStatus.CANCELLED:
        return event
    return latest.changed(
        results=event.results,
        started_at=latest.started_at or event.started_at,
        attempts=event.attempts,
        llm_usage=event.llm_usage,
        updated_at=event.updated_at,
    )
