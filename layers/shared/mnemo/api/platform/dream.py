"""Dream's routes of a project, under `/api/v1/orgs/organizations/{org_id}/projects/{project_id}/dream/`
(mnemo.services.platform.dream): the configuration (`config/`: GET any member, PATCH an OWNER), an on-demand
Synthesis run (`run/`, ours: POST an OWNER), and a synthesized memory's sources (`memory/{memory_id}/sources/`:
GET any member)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from mnemo.api.limits import MAX_NAME, MAX_SHORT
from mnemo.api.platform.dependencies import DreamServiceDep
from mnemo.api.platform.responses.dream import DreamConfigOut, DreamRunQueuedOut, DreamSourcesOut
from mnemo.api.platform.security import Caller
from mnemo.api.responses import errors
from mnemo.api.routing import TypedRoute

router = APIRouter(
    route_class=TypedRoute, prefix="/api/v1/orgs/organizations", tags=["platform: organizations and projects"]
)

DREAM = "/{org_id}/projects/{project_id}/dream/config/"
DREAM_RUN = "/{org_id}/projects/{project_id}/dream/run/"
DREAM_SOURCES = "/{org_id}/projects/{project_id}/dream/memory/{memory_id}/sources/"


class DreamPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reflection_enabled: bool | None = Field(
        default=None, description="Turn Synthesis on or off (on needs entitlements.features.synthesis)."
    )
    reflection_mode: str | None = Field(
        default=None,
        max_length=MAX_SHORT,
        description="batch (on the schedule, and on demand) or manual (only on demand: POST …/dream/run/).",
    )

    def changes(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.model_fields_set if getattr(self, name) is not None}


@router.get(DREAM, summary="A project's Dream configuration and the entitlements", responses=errors(401, 404))
def get_dream_config(org_id: str, project_id: str, caller: Caller, dream: DreamServiceDep) -> DreamConfigOut:
    return DreamConfigOut.of(dream.config(org_id, project_id, caller.user))


@router.patch(
    DREAM,
    summary="Change a project's Dream configuration (OWNER)",
    response_description="The configuration as stored, with the entitlements.",
    responses=errors(400, 401, 403, 404),
)
def update_dream_config(
    org_id: str, project_id: str, body: DreamPatch, caller: Caller, dream: DreamServiceDep
) -> DreamConfigOut:
    return DreamConfigOut.of(dream.update(org_id, project_id, caller.user, body.changes()))


class DreamRunBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAME,
        description="Reflect on this user alone; absent: every user with enough memories of their own. At most 255 "
        "characters, no control character (400).",
    )


@router.post(
    DREAM_RUN,
    summary="Run Synthesis now (OWNER; ours)",
    response_description="The run's event, PENDING: GET /v1/event/{event_id}/ follows it; its results list, per "
    "user, every change it made (synthesized, merged, superseded memories), or why a user was skipped.",
    responses=errors(400, 401, 403, 404, 503),
)
def run_dream(
    org_id: str, project_id: str, caller: Caller, dream: DreamServiceDep, body: DreamRunBody | None = None
) -> DreamRunQueuedOut:
    user_id = body.user_id if body is not None else None
    return DreamRunQueuedOut.of(dream.run(org_id, project_id, caller.user, user_id))


@router.get(
    DREAM_SOURCES,
    summary="The memories a synthesized memory was drawn from",
    response_description="The memory's id, whether it was synthesized, and its sources still stored.",
    responses=errors(400, 401, 404),
)
def get_dream_sources(
    org_id: str, project_id: str, memory_id: str, caller: Caller, dream: DreamServiceDep
) -> DreamSourcesOut:
    return DreamSourcesOut.of(*dream.sources(org_id, project_id, caller.user, memory_id))
