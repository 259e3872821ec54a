"""Dream's configuration of a platform project (issue 15): whether Synthesis (reflection) is on, since when, and in
which mode, beside the deployment's entitlements (its plan, the reflection interval, the features it offers).

Supersede and Merge run at add time for every project (mnemo.services.memory_service); Synthesis is opt-in. It is
not built yet: the entitlements say `synthesis: false`, and turning reflection on is a 400 that says so, never a
setting that silently does nothing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mnemo.domain.memory import now
from mnemo.domain.tenancy import PlatformUser, Project, Role
from mnemo.errors import ValidationError
from mnemo.services.platform.tenancy import TenancyService

REFLECTION_MODES = ("batch",)


@dataclass(frozen=True, slots=True)
class Entitlements:
    """What the deployment offers (its settings: MNEMO_PLAN, MNEMO_REFLECTION_INTERVAL_DAYS)."""

    plan: str
    reflection_interval_days: int
    synthesis: bool = False  # not built yet

    @property
    def features(self) -> dict[str, Any]:
        return {
            "supersede": True,
            "merge": True,
            "synthesis": self.synthesis,
            "reflection_modes": list(REFLECTION_MODES),
        }


@dataclass(frozen=True, slots=True)
class DreamConfig:
    project: Project
    entitlements: Entitlements


class DreamService:
    def __init__(
        self, tenancy: TenancyService, entitlements: Entitlements, clock: Callable[[], datetime] = now
    ) -> None:
        self._tenancy = tenancy
        self.entitlements = entitlements
        self._clock = clock

    def config(self, org_id: str, project_id: str, user: PlatformUser) -> DreamConfig:
        project = self._tenancy.authorized_project(org_id, project_id, user, Role.READER)
        return DreamConfig(project, self.entitlements)

    def update(self, org_id: str, project_id: str, user: PlatformUser, patch: Mapping[str, Any]) -> DreamConfig:
        """PATCH semantics: `reflection_enabled` and `reflection_mode`, each when sent (an OWNER's)."""
        project = self._tenancy.authorized_project(org_id, project_id, user, Role.OWNER)
        if not patch:
            raise ValidationError("Give at least one of: reflection_enabled, reflection_mode.")
        mode = patch.get("reflection_mode", project.reflection_mode)
        if mode not in REFLECTION_MODES:
            raise ValidationError(f"Unknown reflection_mode {mode!r}: one of {', '.join(REFLECTION_MODES)}.")
        enabled = patch.get("reflection_enabled", project.reflection_enabled)
        if enabled and not self.entitlements.synthesis:
            raise ValidationError(
                "Synthesis (reflection) is not available on this deployment (entitlements.features.synthesis is "
                "false): it cannot be turned on. Supersede and merge run at add time for every project."
            )
        since = project.reflection_enabled_at
        if enabled and not project.reflection_enabled:
            since = self._clock()
        updated = project.changed(
            reflection_enabled=bool(enabled),
            reflection_enabled_at=since,
            reflection_mode=mode,
            updated_at=self._clock(),
        )
        self._tenancy.save_project(updated)
        return DreamConfig(updated, self.entitlements)
