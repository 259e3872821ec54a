"""Dream's configuration of a project (issue 15): `GET` (any member) and `PATCH` (an OWNER) of
`/api/v1/orgs/organizations/{org_id}/projects/{project_id}/dream/config/` (mnemo.services.platform.dream)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from mnemo.api.dependencies import DreamServiceDep
from mnemo.api.limits import MAX_SHORT
from mnemo.api.platform.responses.dream import DreamConfigOut
from mnemo.api.platform.security import Caller
from mnemo.api.responses import errors
from mnemo.api.routing import TypedRoute

router = APIRouter(
    route_class=TypedRoute, prefix="/api/v1/orgs/organizations", tags=["platform: organizations and projects"]
)

DREAM = "/{org_id}/projects/{project_id}/dream/config/"


class DreamPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reflection_enabled: bool | None = Field(
        default=None, description="Turn Synthesis on or off (on needs entitlements.features.synthesis)."
    )
    reflection_mode: str | None = Field(default=None, max_length=MAX_SHORT, description="batch.")

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
