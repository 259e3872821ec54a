"""POST /v1/memories/import/ (ours): many conversations and memories at once — a list of items, or an export of
this server or of Mem0's — run as one queued job (an IMPORT event; mnemo.services.platform.imports)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from mnemo.api.dependencies import in_loop, platform_services
from mnemo.api.platform.bodies import ImportBody, top_level_ids
from mnemo.api.platform.responses.imports import ImportQueuedOut
from mnemo.api.platform.security import Owner
from mnemo.api.responses import errors
from mnemo.api.routing import TypedRoute
from mnemo.services.platform.jobs.import_request import parse_import
from mnemo.services.platform.jobs.imports import ImportJobs

router = APIRouter(route_class=TypedRoute, tags=["platform: memories"])


def import_jobs(request: Request) -> ImportJobs:
    return platform_services(request).imports


ImportJobsDep = Annotated[ImportJobs, Depends(in_loop(import_jobs))]


@router.post(
    "/v1/memories/import/",
    summary="Import many conversations and memories, or an export, as one job (ours)",
    response_description="`{event_id, status: PENDING}` as an asynchronous add answers, with the items counted and "
    "those refused; GET /v1/event/{event_id}/ follows it (`progress`, then a result per item).",
    responses=errors(400, 401, 403, 413, 503),
)
def import_memories(body: ImportBody, caller: Owner, imports: ImportJobsDep) -> ImportQueuedOut:
    request = parse_import(body.items, body.format, top_level_ids(body), infer=body.infer)
    return ImportQueuedOut.of(imports.submit(caller.project, request), request)
