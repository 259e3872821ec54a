"""Dream runs: Synthesis (reflection) over the users of a project, as jobs of the platform's worker.

A run is an event (type DREAM) whose payload says why it runs (`trigger`: `schedule`, or `request` for
POST …/dream/run/) and over whom (`user_ids`, or null: every user with enough memories). It is stored PENDING and
queued like an add (locally the add worker's queue, on AWS the ingest queue, message group `<project>/dream`), and
AddJobs.process hands it to DreamJobs.process.

For each user the run first takes them: a scheduled run takes over the claim the schedule made for it in the
ReflectionStore (`claimed_at` in its payload; mnemo.services.platform.dream.schedule picks a user at most once per
interval), any other run claims the user then and there (whatever the interval); either way only when no other run
holds them. It reads their own memories (a user id and no agent or run id; the newest `max_memories`), skips them
below `min_memories`, asks the LLM (mnemo.services.platform.dream.reflection) and applies the checked answer
(MemoryService.consolidate), then ends the claim. Each user's result is stored as it is made: `{"user_id",
"status": "DONE", "memories_read", "changes": [...], "ignored": [...]}`, or `SKIPPED` / `FAILED` with a `reason`;
every change is `{"id", "event", "action", "data": {"memory"}}` with `replaced_by` (a memory merged or superseded),
`previous_memory` (one reworded) or `source_memory_ids` (one synthesized). The run ends SUCCEEDED,
PARTIALLY_COMPLETED (some users FAILED, some done) or FAILED.

An error that passes (the LLM throttled or down), before the event's last attempt, puts the run back to PENDING with
the users done so far and raises RetryLaterError: the rerun skips them. A long run goes on in parts of
`part_seconds`, each a message of its own (as an import does), so that no worker call outlives its time limit.
Every change writes its history rows and, through the store's outbox, its webhook events (memory_add for a
synthesized memory, memory_update for a reworded one, memory_delete for one merged or superseded)."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from mnemo.domain import filters as f
from mnemo.domain.entities import EntityType
from mnemo.domain.memory import Event, Scope, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent, Project
from mnemo.domain.timefmt import from_iso, iso
from mnemo.errors import MnemoError
from mnemo.ports.llm import LLM
from mnemo.ports.reflection_store import ReflectionStore
from mnemo.ports.tenancy_store import EventStore
from mnemo.services.commands import ConsolidationChange
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.dream.reflection import ReflectionRejectedError, Reflector
from mnemo.services.platform.jobs.project_settings import project_categories
from mnemo.services.platform.jobs.queueing import Enqueue, RetryLaterError, is_transient, queue_job
from mnemo.services.platform.jobs.router import JobRecords, run_stored
from mnemo.services.platform.tenancy.events import DREAM, job_ref, new_event

log = logging.getLogger("mnemo.platform.dream")

SCHEDULE, REQUEST = "schedule", "request"  # why a run runs
DONE, SKIPPED, FAILED = "DONE", "SKIPPED", "FAILED"  # how it went for one user
DREAM_OWNER = "dream"  # a project's runs share one message group: they run one after the other
SYNTHESIS_OFF = 'Synthesis is off for this project: turn it on with PATCH …/dream/config/ {"reflection_enabled": true}.'
HANDED_OVER = "The schedule's claim on this user was taken over by another run (this one waited past its lease)."
NO_LLM = (
    "Synthesis needs an LLM and none is configured (MNEMO_LLM_PROVIDER, or POST /configure on the self-hosted "
    "surface); supersede and merge still run at add time."
)


@dataclass(frozen=True, slots=True)
class DreamPolicy:
    """How synthesis runs (the deployment's settings)."""

    min_memories: int = 20  # a user with fewer memories of their own is not reflected on
    interval: timedelta = timedelta(days=7)  # a scheduled run reflects on a user at most once per interval
    lease: timedelta = timedelta(minutes=15)  # a claimed user is held this long (then a run that died lets go)
    max_memories: int = 200  # the newest memories of a user one run reads
    max_syntheses: int = 10  # synthesized memories one run writes per user
    queued_lease: timedelta = timedelta(hours=1)  # the schedule holds the users it queued a run for this long
    part_seconds: float = 120.0  # a run goes on in a message of its own after this long


def user_only(user_id: str) -> f.Expr:
    """The memories of the user alone: theirs, with no agent or run."""
    return f.And(
        (
            f.Condition("user_id", "eq", user_id),
            f.Not(f.Condition("agent_id", "exists", None)),
            f.Not(f.Condition("run_id", "exists", None)),
        )
    )


def change_view(change: ConsolidationChange) -> dict[str, Any]:
    """One change of a run, as its event's results show it (ids and text, as an add's results do)."""
    record = change.record
    out: dict[str, Any] = {
        "id": record.id,
        "event": change.event.value,
        "action": change.action.value,
        "data": {"memory": record.text},
    }
    if change.event is Event.DELETE and record.replaced_by:
        out["replaced_by"] = record.replaced_by
    if change.previous_memory is not None:
        out["previous_memory"] = change.previous_memory
    if record.synthesized and change.event is Event.ADD:
        out["source_memory_ids"] = list(record.derived_from)
    return out


def outcome(results: Sequence[Mapping[str, Any]]) -> tuple[EventStatus, str | None]:
    """How a run ended, from its users' results."""
    failed = sum(1 for r in results if r.get("status") == FAILED)
    done = sum(1 for r in results if r.get("status") == DONE)
    if not failed:
        return EventStatus.SUCCEEDED, None
    summary = f"{failed:,} of {len(results):,} users could not be reflected on; their results say why."
    return (EventStatus.PARTIALLY_COMPLETED if done else EventStatus.FAILED), summary


class DreamJobs:
    """Submits Dream runs (stored PENDING, then queued) and runs them (the JobRouter hands it DREAM events)."""

    def __init__(
        self,
        namespaces: NamespaceMemoryServices,
        events: JobRecords,
        reflections: ReflectionStore,
        llm: Callable[[], LLM | None],
        enqueue: Enqueue | None = None,
        *,
        policy: DreamPolicy | None = None,
        clock: Callable[[], datetime] = now,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self._namespaces = namespaces
        self._events = events
        self._reflections = reflections
        self._llm = llm
        self._enqueue: Enqueue = enqueue or self._process_now
        self.policy = policy or DreamPolicy()
        self._clock = clock
        self._timer = timer

    # ---- submitting ----

    def submit(
        self,
        project: Project,
        trigger: str,
        user_ids: Sequence[str] | None = None,
        claimed_at: datetime | None = None,
    ) -> PlatformEvent:
        """Store the run's PENDING event, then queue it (an event that cannot be queued ends FAILED: 503).
        `claimed_at`: when the schedule claimed `user_ids` for it (the run takes those claims over)."""
        return submit_run(self._events, self._enqueue, project, trigger, user_ids, claimed_at, clock=self._clock)

    def eligible_users(self, project_id: str) -> list[str]:
        """The users of the project with at least `min_memories` active memories (counted with those they share
        with an agent or a run: the run counts their own), in id order."""
        counts = self._namespaces.memory_service(project_id).entity_counts()
        wanted = self.policy.min_memories
        return sorted(c.id for c in counts if c.type is EntityType.USER and c.total_memories >= wanted)

    # ---- running ----

    def _process_now(self, project_id: str, event_id: str, _owner: str) -> None:
        """What queueing is without a queue: the run (and each next part of it) runs as it is queued."""
        run_stored(self._events, self._events, self, project_id, event_id)

    def process(self, project: Project, event: PlatformEvent, *, max_attempts: int = 1) -> PlatformEvent | None:
        """Run an unfinished DREAM event of an existing project, from its first user without a result, for at most
        `part_seconds` (the rest then goes on in a message of its own). None when the event is gone (its project
        was deleted meanwhile)."""
        started = self._started(event)
        if started is None:
            return None
        llm = self._llm()
        if not project.reflection_enabled or llm is None:
            problem = SYNTHESIS_OFF if not project.reflection_enabled else NO_LLM
            return self._end(started, list(started.results), (EventStatus.FAILED, problem))
        reflector = Reflector(llm, max_memories=self.policy.max_memories, max_syntheses=self.policy.max_syntheses)
        return self._run(project, started, reflector, retry=started.attempts < max_attempts)

    def _started(self, event: PlatformEvent) -> PlatformEvent | None:
        """The event RUNNING (a PENDING one counts an attempt); None when it is no longer stored."""
        if event.status is not EventStatus.PENDING:
            return event
        moment = self._clock()
        running = event.changed(
            status=EventStatus.RUNNING,
            started_at=event.started_at or moment,
            updated_at=moment,
            attempts=event.attempts + 1,
        )
        return running if self._events.update_event(running) else None

    def _run(
        self, project: Project, event: PlatformEvent, reflector: Reflector, *, retry: bool
    ) -> PlatformEvent | None:
        trigger = str(event.payload.get("trigger") or REQUEST)
        claimed = event.payload.get("claimed_at")
        handed = from_iso(claimed) if isinstance(claimed, str) and trigger == SCHEDULE else None
        asked = event.payload.get("user_ids")
        users = [str(u) for u in asked] if isinstance(asked, list) else self.eligible_users(project.id)
        results = list(event.results)
        done = {r.get("user_id") for r in results}
        first, deadline = len(results), self._timer() + self.policy.part_seconds
        for user_id in (u for u in users if u not in done):
            if len(results) > first and self._timer() >= deadline:  # one user at least per part
                if self._queue_next_part(event, len(results)):
                    return event.changed(results=results)
                deadline = math.inf  # the queue refused the next part: this call goes on
            try:
                results.append(self._reflect(project, user_id, handed, reflector, retry=retry))
            except Exception as exc:  # an error that passes, with attempts left: the run is retried later
                log.warning("dream run %s of project %s will be retried: %s", event.id, project.id, exc)
                pending = event.changed(status=EventStatus.PENDING, results=results, updated_at=self._clock())
                if self._events.update_event(pending):
                    raise RetryLaterError(event.id, str(exc)) from exc
                return None
            event = event.changed(results=results, updated_at=self._clock())
            if not self._events.update_event(event):
                return None
        return self._end(event, results, outcome(results))

    def _reflect(
        self, project: Project, user_id: str, handed: datetime | None, reflector: Reflector, *, retry: bool
    ) -> dict[str, Any]:
        """One user's result; an error that passes, with attempts left, is raised (the claim let go). `handed`:
        when the schedule claimed the user for this run (the claim is taken over), else the user is claimed now."""
        at = self._clock()
        if handed is not None:
            if not self._reflections.renew(project.id, user_id, handed, at, lease=self.policy.lease):
                return {"user_id": user_id, "status": SKIPPED, "reason": HANDED_OVER}
        elif not self._reflections.claim(project.id, user_id, at, lease=self.policy.lease):
            return {"user_id": user_id, "status": SKIPPED, "reason": self._not_claimed(project.id, user_id, at)}
        ran = False
        try:
            service = self._namespaces.memory_service(project.id)
            memories = service.get_all(user_only(user_id), top_k=self.policy.max_memories)
            if len(memories) < self.policy.min_memories:
                reason = (
                    f"{len(memories)} memories of their own (no agent or run); Synthesis needs at least "
                    f"{self.policy.min_memories}."
                )
                return {"user_id": user_id, "status": SKIPPED, "reason": reason}
            reflection = reflector.reflect(
                Scope(user_id=user_id),
                memories,
                instructions=project.custom_instructions,
                custom_categories=project_categories(project),
            )
            changes = service.consolidate(reflection.command)
            ran = True
            return {
                "user_id": user_id,
                "status": DONE,
                "memories_read": len(memories),
                "changes": [change_view(c) for c in changes],
                "ignored": reflection.ignored,
            }
        except ReflectionRejectedError as rejected:  # the run happened: the user waits for the next interval
            ran = True
            return {"user_id": user_id, "status": FAILED, "reason": str(rejected)}
        except Exception as exc:
            if retry and is_transient(exc):
                raise
            if not isinstance(exc, MnemoError):
                log.exception("dream run of user %s of project %s failed", user_id, project.id)
            reason = exc.message if isinstance(exc, MnemoError) else f"{type(exc).__name__}: {exc}"
            return {"user_id": user_id, "status": FAILED, "reason": reason}
        finally:
            self._reflections.release(project.id, user_id, at, ran=ran)

    def _not_claimed(self, project_id: str, user_id: str, at: datetime) -> str:
        """Why a user could not be claimed: another run holds them (or the schedule has queued one for them)."""
        state = self._reflections.states(project_id).get(user_id)
        until = state.lease_until.isoformat() if state is not None and state.lease_until else "shortly"
        return f"Another Dream run is reflecting on this user, or is queued to (held until {until})."

    def _queue_next_part(self, event: PlatformEvent, done: int) -> bool:
        """Queue the rest of the run as its next part; False when the queue refuses it."""
        try:
            self._enqueue(event.project_id, job_ref(event.id, done), DREAM_OWNER)
        except Exception:
            log.exception("the next part of dream run %s of project %s could not be queued", event.id, event.project_id)
            return False
        return True

    def _end(
        self, event: PlatformEvent, results: list[dict[str, Any]], end: tuple[EventStatus, str | None]
    ) -> PlatformEvent | None:
        moment = self._clock()
        status, error = end
        ended = event.changed(status=status, results=results, error=error, completed_at=moment, updated_at=moment)
        return ended if self._events.update_event(ended) else None


def submit_run(
    events: EventStore,
    enqueue: Enqueue,
    project: Project,
    trigger: str,
    user_ids: Sequence[str] | None,
    claimed_at: datetime | None = None,
    *,
    clock: Callable[[], datetime] = now,
) -> PlatformEvent:
    """Store a Dream run's PENDING event, then queue it: an acknowledged run is never lost. `claimed_at` (a
    scheduled run's): when the schedule claimed its users, which the run takes over."""
    payload: dict[str, Any] = {"trigger": trigger, "user_ids": None if user_ids is None else list(user_ids)}
    if claimed_at is not None:
        payload["claimed_at"] = iso(claimed_at)
    event = new_event(project.id, DREAM, payload, clock())
    queue_job(
        events,
        event,
        lambda: enqueue(project.id, event.id, DREAM_OWNER),
        clock,
        failed="The Dream run could not be queued; nothing was changed. Ask again.",
        unavailable="The job queue is unavailable; the Dream run was not queued. Retry shortly.",
    )
    return event
