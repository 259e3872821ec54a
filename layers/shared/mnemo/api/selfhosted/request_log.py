"""Self-hosted API call log: GET /requests (an admin's Bearer token, or the admin key)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from mnemo.api.dependencies import RequestLogServiceDep
from mnemo.api.responses import errors
from mnemo.api.routing import TypedRoute
from mnemo.api.security import LogReader
from mnemo.api.selfhosted.responses import RequestLogOut

router = APIRouter(route_class=TypedRoute, tags=["request logs"])


@router.get("/requests", summary="Recent API calls, newest first", responses=errors(401, 403))
def recent_requests(
    _caller: LogReader, request_log: RequestLogServiceDep, limit: Annotated[int, Query(ge=1, le=200)] = 50
) -> list[RequestLogOut]:
    return [RequestLogOut.of(e) for e in request_log.recent(limit)]
