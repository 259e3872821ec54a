"""A project's usage per day (`GET /api/v1/orgs/organizations/{org_id}/projects/{project_id}/usage/?days=30`):
one source for the clients and the console's Usage page.

The caller is the user of the `Token` key, as on the other organization and project routes: any member of the
project may read it (READER or OWNER); anyone else gets 404. `days` is bounded in the schema, so a value out of
range is refused before any work.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request

from mnemo.api.dependencies import in_loop, platform_services
from mnemo.api.platform.dependencies import TenancyServiceDep
from mnemo.api.platform.responses.usage import UsageOut
from mnemo.api.platform.security import Caller
from mnemo.api.responses import errors
from mnemo.api.routing import TypedRoute
from mnemo.services.platform.usage.report import DEFAULT_DAYS, MAX_DAYS, UsageService

router = APIRouter(
    route_class=TypedRoute, prefix="/api/v1/orgs/organizations", tags=["platform: organizations and projects"]
)


def usage_service(request: Request) -> UsageService:
    return platform_services(request).usage


UsageServiceDep = Annotated[UsageService, Depends(in_loop(usage_service))]


@router.get(
    "/{org_id}/projects/{project_id}/usage/",
    summary="A project's usage per day: adds, searches, gets, LLM tokens",
    responses=errors(401, 404),
)
def project_usage(
    org_id: str,
    project_id: str,
    caller: Caller,
    tenancy: TenancyServiceDep,
    usage: UsageServiceDep,
    days: Annotated[
        int,
        Query(ge=1, le=MAX_DAYS, description=f"How many days, ending today (UTC): 1 to {MAX_DAYS}."),
    ] = DEFAULT_DAYS,
) -> UsageOut:
    details = tenancy.project(org_id, project_id, caller.user)  # 404 unless the caller is a member
    return UsageOut.of(usage.report(details.project, days))
