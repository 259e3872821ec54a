"""Self-hosted API call log: GET /requests (an admin's Bearer token, or the admin key)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from mnemo.api.dependencies import Services
from mnemo.api.security import LogReader
from mnemo.domain.request_log import RequestLogEntry
from mnemo.domain.timefmt import iso

router = APIRouter(tags=["request logs"])


@router.get("/requests", summary="Recent API calls, newest first")
def recent_requests(
    _caller: LogReader, services: Services, limit: Annotated[int, Query(ge=1, le=200)] = 50
) -> list[dict[str, Any]]:
    return [request_view(e) for e in services.request_log.recent(limit)]


def request_view(entry: RequestLogEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "method": entry.method,
        "path": entry.path,
        "status_code": entry.status_code,
        "latency_ms": entry.latency_ms,
        "auth_type": entry.auth_type,
        "user_id": entry.user_id,
        "key_prefix": entry.key_prefix,
        "request_id": entry.request_id,
        "created_at": iso(entry.created_at),
    }
