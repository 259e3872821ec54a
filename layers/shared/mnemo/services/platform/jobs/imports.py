"""Imports: many conversations and memories added at once, as one job (an IMPORT event) of the worker that runs
asynchronous adds.

Every item is checked before anything is queued: one that cannot be added is not queued, and its result says why
(REFUSED); the others are stored in the event's payload as the adds they are (with the project's settings applied,
as an asynchronous add keeps them). The worker then adds them in order, in the project's MemoryService, and records
a result per item (`{"index", "status": "ADDED", "memory_ids"}` or `{"index", "status": "FAILED", "reason"}`),
storing the event every few items: a rerun (a restart, a redelivered message) skips the items recorded, and an item
added but not yet recorded is found again by the add's own deduplication (same scope, same text) rather than stored
twice; such a call writes again the index documents of the memories it finds stored already, whose index write may
have been what failed (memories/index_heal.py). Between items it reads the event: one CANCELLED meanwhile stops
there, keeping what it added. A cancel that lands between that read and the worker's next write is kept too: the
event store refuses to move an ended event to another status, and the worker, refused, stops as it would have. A
long import runs in parts of PART_SECONDS, each a message of its own (the next queued before this one returns), so
that no worker call outlives its time limit and other jobs run between the parts.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from mnemo.domain.memory import Event, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent, Project
from mnemo.errors import MnemoError, ValidationError
from mnemo.ports.tenancy_store import DirectoryStore, EventStore, ProjectRecordStore
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.memory import MemoryService
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.jobs.adds import count_llm_usage
from mnemo.services.platform.jobs.import_request import ImportItem, ImportRequest, import_payload, items_of
from mnemo.services.platform.jobs.import_results import ADDED, FAILED, added, merged, outcome, owner_of, result
from mnemo.services.platform.jobs.project_settings import with_project_settings
from mnemo.services.platform.jobs.queueing import Enqueue, RetryLaterError, is_transient, queue_job
from mnemo.services.platform.jobs.router import run_stored
from mnemo.services.platform.memories.index_heal import reindex_memories
from mnemo.services.platform.tenancy.events import IMPORT, job_ref, new_event

log = logging.getLogger("mnemo.platform.imports")

PROGRESS_EVERY_ITEMS = 20  # the event is stored with its results every this many items…
PROGRESS_EVERY_SECONDS = 2.0  # …or this often, whichever comes first
PART_SECONDS = 40.0  # an import runs this long per worker call, then goes on in a message of its own


@dataclass
class _Run:
    """One worker call's run of an import: the results so far, and when they were last stored."""

    results: list[dict[str, Any]]
    first: int  # the results there were when this call began
    stored: int
    stored_at: float
    deadline: float
    service: MemoryService
    retry: bool
    heal: bool  # a rerun, or a later part: an item may have been stored before, and its index write lost
    total: int = 0
    ended: PlatformEvent | None = field(default=None)


class ImportJobs:
    """Submits imports (stored PENDING, then queued) and runs them, a part at a time (the JobRouter hands it the
    IMPORT events)."""

    part_seconds = PART_SECONDS

    def __init__(
        self,
        namespaces: NamespaceMemoryServices,
        directory: DirectoryStore,
        events: EventStore,
        records: ProjectRecordStore,
        enqueue: Enqueue | None = None,
        *,
        clock: Callable[[], datetime] = now,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        """`enqueue`: the job queue (None: an import, and each next part of it, runs as it is queued)."""
        self._namespaces = namespaces
        self._directory = directory
        self._events = events
        self._records = records
        self._enqueue: Enqueue = enqueue or self._process_now
        self._clock = clock
        self._timer = timer

    def submit(self, project: Project, request: ImportRequest) -> PlatformEvent:
        """Store the PENDING event (the items with the project's settings applied, and the results of those
        refused), then queue it: an acknowledged import is never lost."""
        items = [replace(item, command=with_project_settings(item.command, project)) for item in request.items]
        payload = import_payload(request.format, request.total, items)
        event = new_event(project.id, IMPORT, payload, self._clock()).changed(results=list(request.refused))
        queue_job(
            self._events,
            event,
            lambda: self._enqueue(project.id, event.id, owner_of(event.id)),
            self._clock,
            failed="The import could not be queued; nothing was added. Send it again.",
            unavailable="The job queue is unavailable; nothing was imported. Retry shortly.",
        )
        return event

    def _process_now(self, project_id: str, event_id: str, _owner: str) -> None:
        run_stored(self._events, self._directory, self, project_id, event_id)

    def process(self, project: Project, event: PlatformEvent, *, max_attempts: int = 1) -> PlatformEvent | None:
        """Run an unfinished import of an existing project, from its first item without a result, for at most
        `part_seconds` (then the rest is queued as a part of its own). An error that passes (a provider throttled
        or down) puts the import back to PENDING and raises RetryLaterError, before its `max_attempts`-th attempt;
        on that one the item fails and the import goes on. None when the project is gone."""
        project_id = project.id
        resumed = _resumed(event)
        if event.status is EventStatus.PENDING:
            moment = self._clock()
            event = event.changed(
                status=EventStatus.RUNNING,
                started_at=event.started_at or moment,
                updated_at=moment,
                attempts=event.attempts + 1,
            )
            if not self._events.update_event(event):
                return None
        try:
            items = items_of(event.payload)
        except ValidationError as exc:
            moment = self._clock()
            failed = event.changed(status=EventStatus.FAILED, error=exc.message, completed_at=moment, updated_at=moment)
            return failed if self._events.update_event(failed) else self._gone(project_id, event)
        done = {r.get("index") for r in event.results}
        started = self._timer()
        run = _Run(
            results=list(event.results),
            first=len(event.results),
            stored=len(event.results),
            stored_at=started,
            deadline=started + self.part_seconds,
            service=self._namespaces.memory_service(project_id),
            retry=event.attempts < max_attempts,
            heal=resumed,
            total=int(event.payload.get("total") or len(items)),
        )
        for item in (i for i in items if i.index not in done):
            if not self._before_item(project_id, event, run):
                return run.ended
            try:
                run.results.append(self._add(project_id, run, item))
            except Exception as exc:  # an error that passes, with attempts left: the import is retried later
                return self._retry_later(project_id, event, run, exc)
        return self._finish(project_id, event, run)

    def _before_item(self, project_id: str, event: PlatformEvent, run: _Run) -> bool:
        """Whether to go on with the next item: not when the import was cancelled (or ended elsewhere), its project
        deleted, or its part's time is up (the rest is then queued). Stores the progress when it is due."""
        latest = self._events.get_event(project_id, event.id)
        if latest is None or latest.status.finished:
            run.ended = self._stopped(project_id, event, latest, run)
            return False
        due = len(run.results) > run.stored and (
            len(run.results) - run.stored >= PROGRESS_EVERY_ITEMS
            or self._timer() - run.stored_at >= PROGRESS_EVERY_SECONDS
        )
        part_over = len(run.results) > run.first and self._timer() >= run.deadline  # one item at least per part
        if (due or part_over) and not self._store_progress(latest, run):
            run.ended = self._refused(project_id, event, run)
            return False
        if part_over and self._queue_next_part(project_id, event, run):
            run.ended = latest.changed(results=merged(latest.results, run.results))
            return False
        return True

    def _store_progress(self, latest: PlatformEvent, run: _Run) -> bool:
        stored = latest.changed(results=merged(latest.results, run.results), updated_at=self._clock())
        if not self._events.update_event(stored):
            return False
        run.stored, run.stored_at = len(run.results), self._timer()
        return True

    def _queue_next_part(self, project_id: str, event: PlatformEvent, run: _Run) -> bool:
        """Queue the rest of the import as its next part; should the queue refuse it, this call goes on."""
        try:
            self._enqueue(project_id, job_ref(event.id, len(run.results)), owner_of(event.id))
        except Exception:
            log.exception("the next part of import %s of project %s could not be queued", event.id, project_id)
            run.deadline = math.inf
            return False
        return True

    def _add(self, project_id: str, run: _Run, item: ImportItem) -> dict[str, Any]:
        """Add one item; its result. An error that passes, with attempts left, is raised. The LLM calls of an
        inferred item count in the project's statistics (an import's event keeps no usage of its own)."""
        meter = UsageMeter()
        try:
            results = run.service.add(item.command, meter=meter)
            if run.heal:  # the memories found stored already: this run wrote the others' documents itself
                reindex_memories(run.service, [r.record.id for r in results if r.event is Event.NONE])
            return added(item.index, results)
        except Exception as exc:
            if run.retry and is_transient(exc):
                raise
            if not isinstance(exc, MnemoError):
                log.exception("item %d of an import failed", item.index)
            reason = exc.message if isinstance(exc, MnemoError) else f"{type(exc).__name__}: {exc}"
            return result(item.index, FAILED, reason=reason)
        finally:
            count_llm_usage(self._records, project_id, meter.usage)

    def _retry_later(self, project_id: str, event: PlatformEvent, run: _Run, exc: Exception) -> PlatformEvent | None:
        latest = self._events.get_event(project_id, event.id)
        if latest is None or latest.status.finished:
            return self._stopped(project_id, event, latest, run)
        log.warning("import %s of project %s will be retried: %s", event.id, project_id, exc)
        pending = latest.changed(
            status=EventStatus.PENDING, results=merged(latest.results, run.results), updated_at=self._clock()
        )
        if not self._events.update_event(pending):
            return self._refused(project_id, event, run)
        raise RetryLaterError(event.id, str(exc)) from exc

    def _finish(self, project_id: str, event: PlatformEvent, run: _Run) -> PlatformEvent | None:
        latest = self._events.get_event(project_id, event.id)
        if latest is None or latest.status.finished:
            return self._stopped(project_id, event, latest, run)
        results = merged(latest.results, run.results)
        status, error = outcome(results, run.total)
        moment = self._clock()
        ended = latest.changed(status=status, results=results, error=error, completed_at=moment, updated_at=moment)
        if not self._events.update_event(ended):
            return self._refused(project_id, event, run)
        if status is not EventStatus.FAILED:
            self._records.bump_counter(project_id, "add_events")
        return ended

    def _stopped(
        self, project_id: str, event: PlatformEvent, latest: PlatformEvent | None, run: _Run
    ) -> PlatformEvent | None:
        """The import was cancelled (its end is stored with what this run added), ended elsewhere (left as it is),
        or its project deleted (None)."""
        if latest is None:
            return self._gone(project_id, event)
        if latest.status is not EventStatus.CANCELLED:
            return latest
        results = merged(latest.results, run.results)
        count = sum(1 for r in results if r.get("status") == ADDED)
        error = (
            f"Cancelled while running: {count:,} of {run.total:,} items had been imported, and are kept; the "
            "results say which."
        )
        ended = latest.changed(
            results=results, error=error, started_at=latest.started_at or event.started_at, updated_at=self._clock()
        )
        return ended if self._events.update_event(ended) else self._gone(project_id, event)

    def _refused(self, project_id: str, event: PlatformEvent, run: _Run) -> PlatformEvent | None:
        """A write the store refused: the import was cancelled (or ended elsewhere) since it was last read, and the
        store's status rule kept it so; or it is gone."""
        return self._stopped(project_id, event, self._events.get_event(project_id, event.id), run)

    def _gone(self, project_id: str, event: PlatformEvent) -> PlatformEvent | None:
        """The event is no longer stored: should its project have been deleted meanwhile, what the import added goes
        too."""
        if self._directory.get_project(project_id) is None:
            log.warning("project %s was deleted while its import %s ran; dropping what it wrote", project_id, event.id)
            self._namespaces.drop(project_id)
        return None


def _resumed(event: PlatformEvent) -> bool:
    """Whether this worker call goes on from an earlier one (a retry, a later part, a run after a crash): an item it
    adds may have been stored by that call, whose index write was lost."""
    return event.status is not EventStatus.PENDING or event.attempts > 0
