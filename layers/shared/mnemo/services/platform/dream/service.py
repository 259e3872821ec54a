"""Dream's configuration of a platform project: whether Synthesis (reflection) is on, since when, and in
which mode, beside the deployment's entitlements (its plan, the reflection interval, the features it offers); and
the project's on-demand runs and the sources of its synthesized memories.

Supersede and Merge run at add time for every project (mnemo.services.memory); Synthesis is opt-in, runs on
the schedule (mode `batch`: mnemo.services.platform.dream.schedule) or only when asked (mode `manual`: POST
…/dream/run/), and needs an LLM: without one (or on a plan that does not offer it) the entitlements say
`synthesis: false`, and turning it on is a 400 that says why, never a setting that silently does nothing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mnemo.domain.entity_ids import checked_entity_id
from mnemo.domain.memory import MemoryRecord, now
from mnemo.domain.tenancy import PlatformEvent, PlatformUser, Project, Role
from mnemo.errors import ValidationError
from mnemo.ports.reflection_store import ReflectionStore
from mnemo.services.platform.dream.runs import NO_LLM, REQUEST, SYNTHESIS_OFF, DreamJobs
from mnemo.services.platform.memories.project_memory import ProjectMemoryService
from mnemo.services.platform.tenancy.service import TenancyService

BATCH, MANUAL = "batch", "manual"
REFLECTION_MODES = (BATCH, MANUAL)  # batch: on the schedule (and on demand); manual: only on demand
NOT_ON_PLAN = "Synthesis (reflection) is not part of this deployment's plan (MNEMO_DREAM_SYNTHESIS is false)."


@dataclass(frozen=True, slots=True)
class Entitlements:
    """What the deployment offers (its settings: MNEMO_PLAN, MNEMO_REFLECTION_INTERVAL_DAYS, MNEMO_DREAM_SYNTHESIS,
    MNEMO_REFLECTION_MIN_MEMORIES)."""

    plan: str
    reflection_interval_days: int
    synthesis: bool = True  # the plan offers Synthesis (it still needs an LLM)
    min_memories: int = 20

    def features(self, llm: bool) -> dict[str, Any]:
        """The features, with Synthesis available only when offered and an LLM is configured (`llm`)."""
        out: dict[str, Any] = {
            "supersede": True,
            "merge": True,
            "synthesis": self.synthesis and llm,
            "reflection_modes": list(REFLECTION_MODES),
            "synthesis_min_memories": self.min_memories,
        }
        unavailable = self.unavailable(llm)
        if unavailable is not None:
            out["synthesis_unavailable"] = unavailable
        return out

    def unavailable(self, llm: bool) -> str | None:
        """Why Synthesis cannot run here (None when it can)."""
        if not self.synthesis:
            return NOT_ON_PLAN
        return None if llm else NO_LLM


@dataclass(frozen=True, slots=True)
class DreamConfig:
    project: Project
    entitlements: Entitlements
    llm: bool  # whether an LLM is configured (Synthesis needs one)

    @property
    def features(self) -> dict[str, Any]:
        return self.entitlements.features(self.llm)


class DreamService:
    def __init__(
        self,
        tenancy: TenancyService,
        entitlements: Entitlements,
        reflections: ReflectionStore,
        project_memory: ProjectMemoryService,
        jobs: DreamJobs,
        *,
        llm_available: Callable[[], bool] = lambda: False,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self._tenancy = tenancy
        self.entitlements = entitlements
        self._reflections = reflections
        self._project_memory = project_memory
        self._llm_available = llm_available
        self._clock = clock
        self.jobs = jobs

    def config(self, org_id: str, project_id: str, user: PlatformUser) -> DreamConfig:
        project = self._tenancy.authorized_project(org_id, project_id, user, Role.READER)
        return DreamConfig(project, self.entitlements, self._llm_available())

    def update(self, org_id: str, project_id: str, user: PlatformUser, patch: Mapping[str, Any]) -> DreamConfig:
        """PATCH semantics: `reflection_enabled` and `reflection_mode`, each when sent (an OWNER's)."""
        project = self._tenancy.authorized_project(org_id, project_id, user, Role.OWNER)
        if not patch:
            raise ValidationError("Give at least one of: reflection_enabled, reflection_mode.")
        mode = patch.get("reflection_mode", project.reflection_mode)
        if mode not in REFLECTION_MODES:
            raise ValidationError(f"Unknown reflection_mode {mode!r}: one of {', '.join(REFLECTION_MODES)}.")
        llm = self._llm_available()
        enabled = bool(patch.get("reflection_enabled", project.reflection_enabled))
        unavailable = self.entitlements.unavailable(llm)
        if patch.get("reflection_enabled") is True and unavailable is not None:
            raise ValidationError(f"Synthesis cannot be turned on: {unavailable}")
        since = self._clock() if enabled and not project.reflection_enabled else project.reflection_enabled_at
        updated = project.changed(
            reflection_enabled=enabled, reflection_enabled_at=since, reflection_mode=mode, updated_at=self._clock()
        )
        if enabled:  # listed first: the schedule checks the project record, so a list entry alone does nothing
            self._reflections.set_enabled(project.id, True)
        self._tenancy.save_project(updated)
        if not enabled:
            self._reflections.set_enabled(project.id, False)
        return DreamConfig(updated, self.entitlements, llm)

    def run(self, org_id: str, project_id: str, user: PlatformUser, user_id: str | None = None) -> PlatformEvent:
        """Queue a Synthesis run over the project's users with enough memories, or over `user_id` alone (an
        OWNER's, whatever the interval: a run already reflecting on a user is still waited for)."""
        users = None if user_id is None else [checked_entity_id(user_id, "user_id")]
        project = self._tenancy.authorized_project(org_id, project_id, user, Role.OWNER)
        unavailable = self.entitlements.unavailable(self._llm_available())
        if unavailable is not None:
            raise ValidationError(f"No Dream run: {unavailable}")
        if not project.reflection_enabled:
            raise ValidationError(SYNTHESIS_OFF)
        return self.jobs.submit(project, REQUEST, users)

    def sources(
        self, org_id: str, project_id: str, user: PlatformUser, memory_id: str
    ) -> tuple[MemoryRecord, list[MemoryRecord]]:
        """A memory of the project and the memories it was synthesized from (those still stored)."""
        project = self._tenancy.authorized_project(org_id, project_id, user, Role.READER)
        return self._project_memory.sources_of(project.id, memory_id)
