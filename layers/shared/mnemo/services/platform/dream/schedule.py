"""Dream's schedule: which users are due a Synthesis run, and the runs that queue them.

`DreamScheduler.tick` reads the projects listed with Synthesis on (ReflectionStore.enabled_projects: a short list,
never every project), checks each against its Project record (one turned off, or deleted, is taken off the list;
one in the `manual` mode is left to POST …/dream/run/), and submits one DREAM run per project with the users due:
at least `min_memories` active memories, no run holding them, and none begun within the interval. It claims each
of them first (a conditional write: of two ticks at once, one picks the user), held for `queued_lease`, and the run
it queues takes those claims over (`renew`, mnemo.services.platform.dream.runs): a user is picked once per
interval, and never reflected on by two runs at once (a tick while the run still waits in the queue finds the user
held). A run left waiting past the lease loses the user to the next tick's claim and skips them.

It runs locally in a worker of `mnemo serve` (DreamTimer, dream/timer.py, every MNEMO_DREAM_SCHEDULE_SECONDS), and
on AWS in the Dream scheduler function, which an EventBridge Scheduler schedule invokes (template.yaml
`DreamSchedule`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime

from mnemo.domain.entities import EntityCount, EntityType
from mnemo.domain.memory import now
from mnemo.domain.tenancy import PlatformEvent, Project
from mnemo.errors import MnemoError
from mnemo.ports.reflection_store import ReflectionStore
from mnemo.ports.tenancy_store import DirectoryStore
from mnemo.services.platform.dream.runs import SCHEDULE, DreamPolicy
from mnemo.services.platform.dream.service import MANUAL

log = logging.getLogger("mnemo.platform.dream")

# How a run is submitted: (project, trigger, user ids, when the schedule claimed them) -> its PENDING event
# (DreamJobs.submit, or submit_run).
Submit = Callable[[Project, str, Sequence[str], datetime], PlatformEvent]


class DreamScheduler:
    def __init__(
        self,
        directory: DirectoryStore,
        reflections: ReflectionStore,
        user_counts: Callable[[str], list[EntityCount]],
        submit: Submit,
        *,
        policy: DreamPolicy | None = None,
        available: Callable[[], bool] = lambda: True,
        clock: Callable[[], datetime] = now,
    ) -> None:
        """`user_counts(project_id)`: the project's entities with their active memories (the store's aggregate);
        `available()`: whether Synthesis can run now (an LLM is configured)."""
        self._directory = directory
        self._reflections = reflections
        self._user_counts = user_counts
        self._submit = submit
        self.policy = policy or DreamPolicy()
        self._available = available
        self._clock = clock

    def due_users(self, project_id: str, at: datetime) -> list[str]:
        """The users of the project due a scheduled run at `at`, in id order."""
        states = self._reflections.states(project_id)
        not_since = at - self.policy.interval
        due = []
        for count in self._user_counts(project_id):
            if count.type is not EntityType.USER or count.total_memories < self.policy.min_memories:
                continue
            state = states.get(count.id)
            if state is None or (not state.held(at) and (state.last_run_at is None or state.last_run_at <= not_since)):
                due.append(count.id)
        return sorted(due)

    def tick(self) -> list[PlatformEvent]:
        """Submit a run for each project with users due; the runs submitted. A project that fails is logged and
        the others go on."""
        if not self._available():
            log.info("dream schedule: no LLM is configured, no Synthesis runs")
            return []
        at = self._clock()
        submitted: list[PlatformEvent] = []
        for project_id in self._reflections.enabled_projects():
            try:
                event = self._tick_project(project_id, at)
            except MnemoError as exc:  # the queue down: the next tick tries again
                log.warning("dream schedule: project %s: %s", project_id, exc.message)
                continue
            if event is not None:
                submitted.append(event)
        return submitted

    def _tick_project(self, project_id: str, at: datetime) -> PlatformEvent | None:
        project = self._directory.get_project(project_id)
        if project is None or not project.reflection_enabled:
            self._reflections.set_enabled(project_id, False)
            return None
        if project.reflection_mode == MANUAL:
            return None
        not_since, lease = at - self.policy.interval, self.policy.queued_lease
        claimed = [
            user
            for user in self.due_users(project_id, at)
            if self._reflections.claim(project_id, user, at, lease=lease, not_since=not_since)
        ]
        if not claimed:
            return None
        try:
            return self._submit(project, SCHEDULE, claimed, at)
        except Exception:  # not queued: the users are free for the next tick
            for user in claimed:
                self._reflections.release(project_id, user, at, ran=False)
            raise
