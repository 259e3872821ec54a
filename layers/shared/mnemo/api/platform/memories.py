"""Platform memory routes: v3 add/search/list, the legacy v1/v2 forms, one memory, history, deletes, batch.

Every route works in the caller's project namespace only (the key picks the project): an id of another
project's memory is simply not there, and answers 404. Writes need the OWNER role; reads READER.
"""

from __future__ import annotations

import ast
import json
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from mnemo.api.platform.requests import (
    AddBody,
    BatchBody,
    ListBody,
    SearchBody,
    UpdateBody,
    add_request,
    filter_of,
    project_fields,
    reject_top_level_ids,
    timestamp_of,
    top_level_ids,
    with_extras,
)
from mnemo.api.platform.security import Caller, Owner, Platform
from mnemo.api.platform.views import history_view, memory_view, page, search_view
from mnemo.api.selfhosted.schemas import clean_id, parse_expiration
from mnemo.domain import filters as f
from mnemo.errors import NotFoundError, ValidationError
from mnemo.services.commands import UNSET, SearchCommand, UpdateCommand
from mnemo.services.memory_service import MemoryService
from mnemo.services.platform import filters as pf
from mnemo.services.platform.memories import DELETE
from mnemo.services.platform.services import PlatformServices
from mnemo.services.platform.tenancy import PlatformCaller

router = APIRouter(tags=["platform: memories"])

BATCH_LIMIT = 1000
QUEUED = "Memory processing has been queued for background execution"
NOT_FOUND = "Memory not found!"


def checked_id(memory_id: str) -> str:
    try:
        uuid.UUID(memory_id)
    except ValueError:
        raise ValidationError("memory_id should be a valid UUID") from None
    return memory_id


def get_record(engine: MemoryService, memory_id: str) -> Any:
    record = engine.store.get(checked_id(memory_id))
    if record is None:
        raise NotFoundError(NOT_FOUND)
    return record


# ---- add ----------------------------------------------------------------------------------------------


@router.post("/v3/memories/add/", summary="Add memories (asynchronous unless infer=false)")
def add_v3(body: AddBody, caller: Owner, platform: Platform) -> dict[str, Any]:
    request = add_request(body)
    if not request.infer:
        event, results = platform.memories.add_now(caller.project, request)
        return {
            "message": "Memories stored successfully",
            "status": "SUCCEEDED",
            "event_id": event.id,
            "results": [{k: v for k, v in r.items() if k in ("id", "data", "event")} for r in results],
        }
    event = platform.memories.submit_add(caller.project, request)
    return {"event_id": event.id, "status": event.status.value}


@router.post("/v1/memories/", summary="Add memories (legacy v1)")
def add_v1(body: AddBody, caller: Owner, platform: Platform) -> Any:
    request = add_request(body)
    if not request.infer or body.async_mode is False:
        _event, results = platform.memories.add_now(caller.project, request)
        items = [{"id": r["id"], "memory": r["data"]["memory"], "event": r["event"]} for r in results]
        return {"results": items, "relations": []} if body.output_format == "v1.1" else items
    event = platform.memories.submit_add(caller.project, request)
    return [{"message": QUEUED, "status": event.status.value, "event_id": event.id}]


# ---- search ---------------------------------------------------------------------------------------------


def _search(platform: PlatformServices, caller: PlatformCaller, body: SearchBody, expr: f.Expr) -> list[Any]:
    expr = with_extras(expr, categories=body.categories, metadata=body.metadata)
    results = platform.memories.engine(caller.project_id).search(
        SearchCommand(
            query=body.query,
            filters=expr,
            top_k=10 if body.top_k is None else body.top_k,
            threshold=0.1 if body.threshold is None else body.threshold,
            show_expired=body.show_expired,
        )
    )
    platform.memories.store.bump_counter(caller.project_id, "search_events")
    return [project_fields(search_view(r), body.fields) for r in results]


@router.post("/v3/memories/search/", summary="Search memories (filters required, entity ids inside them)")
def search_v3(body: SearchBody, caller: Caller, platform: Platform) -> dict[str, Any]:
    reject_top_level_ids(body)
    return {"results": _search(platform, caller, body, filter_of(body.filters))}


@router.post("/v2/memories/search/", summary="Search memories (legacy v2: a bare array)")
def search_v2(body: SearchBody, caller: Caller, platform: Platform) -> list[Any]:
    reject_top_level_ids(body)
    return _search(platform, caller, body, filter_of(body.filters))


@router.post("/v1/memories/search/", summary="Search memories (legacy v1: top-level ids)")
def search_v1(body: SearchBody, caller: Caller, platform: Platform) -> Any:
    results = _search(platform, caller, body, filter_of(body.filters, top_level_ids(body)))
    return {"results": results, "relations": []} if body.output_format == "v1.1" else results


# ---- list -----------------------------------------------------------------------------------------------


def _list(
    request: Request,
    platform: PlatformServices,
    caller: PlatformCaller,
    body: ListBody,
    expr: f.Expr,
    page_number: int | None,
    page_size: int | None,
    *,
    paginate: bool,
) -> Any:
    expr = with_extras(
        expr, categories=body.categories, start_date=body.start_date, end_date=body.end_date, keywords=body.keywords
    )
    engine = platform.memories.engine(caller.project_id)
    number = page_number or body.page or 1
    size = page_size or body.page_size or 100
    platform.memories.store.bump_counter(caller.project_id, "get_events")
    if not paginate:
        return [
            project_fields(memory_view(r), body.fields)
            for r in engine.get_all(expr, top_k=size, show_expired=body.show_expired)
        ]
    records = engine.get_all(expr, top_k=size, offset=(number - 1) * size, show_expired=body.show_expired)
    total = engine.count(expr, show_expired=body.show_expired)
    return page(request, [project_fields(memory_view(r), body.fields) for r in records], total, number, size)


PageQuery = Annotated[int | None, Query(ge=1)]
PageSizeQuery = Annotated[int | None, Query(ge=1, le=1000)]


@router.post("/v3/memories/", summary="List memories, paginated (page and page_size in the query)")
def list_v3(
    request: Request,
    caller: Caller,
    platform: Platform,
    body: ListBody | None = None,
    page: PageQuery = None,
    page_size: PageSizeQuery = None,
) -> Any:
    body = body or ListBody()
    reject_top_level_ids(body)
    return _list(request, platform, caller, body, filter_of(body.filters), page, page_size, paginate=True)


@router.post("/v2/memories/", summary="List memories (legacy v2: a bare array unless paginated)")
def list_v2(
    request: Request,
    caller: Caller,
    platform: Platform,
    body: ListBody | None = None,
    page: PageQuery = None,
    page_size: PageSizeQuery = None,
) -> Any:
    body = body or ListBody()
    reject_top_level_ids(body)
    paginate = (page or body.page) is not None and (page_size or body.page_size) is not None
    return _list(request, platform, caller, body, filter_of(body.filters), page, page_size, paginate=paginate)


@router.get("/v1/memories/", summary="List memories (legacy v1: ids in the query)")
def list_v1(
    request: Request,
    caller: Caller,
    platform: Platform,
    user_id: str | None = None,
    agent_id: str | None = None,
    app_id: str | None = None,
    run_id: str | None = None,
    page: PageQuery = None,
    page_size: PageSizeQuery = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> Any:
    ids = {k: v for k, v in {"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "run_id": run_id}.items() if v}
    if not ids:
        raise ValidationError("One of the filters: app_id, user_id, agent_id, run_id is required!")
    if limit is not None and limit > 200:
        raise ValidationError("limit must be <= 200")
    body = ListBody(page_size=page_size or limit or 100)
    expr = filter_of(None, ids)
    return _list(request, platform, caller, body, expr, page, page_size, paginate=bool(page and page_size))


# ---- one memory -------------------------------------------------------------------------------------


@router.get("/v1/memories/{memory_id}/", summary="Get one memory")
def get_memory(memory_id: str, caller: Caller, platform: Platform) -> dict[str, Any]:
    record = get_record(platform.memories.engine(caller.project_id), memory_id)
    platform.memories.store.bump_counter(caller.project_id, "get_events")
    return memory_view(record)


@router.put("/v1/memories/{memory_id}/", summary="Update a memory; returns the updated memory")
def update_memory(memory_id: str, body: UpdateBody, caller: Owner, platform: Platform) -> dict[str, Any]:
    engine = platform.memories.engine(caller.project_id)
    get_record(engine, memory_id)
    expiration: Any = UNSET
    if "expiration_date" in body.model_fields_set:
        expiration = parse_expiration(body.expiration_date)
    moment = timestamp_of(body.timestamp)
    if body.text is None and body.metadata is None and expiration is UNSET and moment is None:
        raise ValidationError("At least one of text, metadata, expiration_date or timestamp must be provided.")
    engine.update(
        UpdateCommand(memory_id, text=body.text, metadata=body.metadata, expiration_date=expiration, created_at=moment)
    )
    return memory_view(engine.get(memory_id))


@router.delete("/v1/memories/{memory_id}/", summary="Delete one memory")
def delete_memory(memory_id: str, caller: Owner, platform: Platform, delete_linked: bool = False) -> dict[str, Any]:
    engine = platform.memories.engine(caller.project_id)
    get_record(engine, memory_id)
    engine.delete(memory_id)
    out: dict[str, Any] = {"message": "Memory deleted successfully!"}
    if delete_linked:
        out["cascade_count"] = 0
    return out


@router.get("/v1/memories/{memory_id}/history/", summary="History of a memory, oldest first")
def memory_history(memory_id: str, caller: Caller, platform: Platform) -> list[dict[str, Any]]:
    engine = platform.memories.engine(caller.project_id)
    entries = engine.store.history(checked_id(memory_id))
    if not entries:
        raise NotFoundError(NOT_FOUND)
    record = engine.store.get(memory_id)
    return [history_view(e, record) for e in entries]


ENTITY_FIELDS = {"user": "user_id", "agent": "agent_id", "app": "app_id", "run": "run_id"}


@router.get(
    "/v1/memories/{entity_type}/{entity_id}/",
    summary="The memories of one user, agent, app or run (legacy v1: a bare array, newest first)",
)
def entity_memories(
    request: Request,
    entity_type: str,
    entity_id: str,
    caller: Caller,
    platform: Platform,
    page: PageQuery = None,
    page_size: PageSizeQuery = None,
) -> Any:
    field = ENTITY_FIELDS.get(entity_type.removesuffix("s"))
    if field is None:
        raise ValidationError("entity_type must be one of user, agent, app or run.")
    body = ListBody(page_size=page_size or 100)
    expr = filter_of(None, {field: entity_id})
    return _list(request, platform, caller, body, expr, page, page_size, paginate=bool(page and page_size))


# ---- delete many --------------------------------------------------------------------------------------


def delete_matching(engine: MemoryService, expr: f.Expr) -> list[str]:
    """Delete every memory (active or not) the filter matches, each with its DELETE history entry."""
    ids = [r.id for r in engine.store.find(expr)]
    for memory_id in ids:
        try:
            engine.delete(memory_id)
        except NotFoundError:
            continue  # deleted meanwhile
    return ids


def _filters_param(raw: str | None) -> dict[str, Any] | None:
    """`filters` in a query string: JSON, or the Python repr the client sends (`{'user_id': 'alice'}`)."""
    if raw is None:
        return None
    try:
        parsed = json.loads(raw)
    except ValueError:
        try:
            parsed = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            raise ValidationError("filters must be a JSON object.") from None
    if not isinstance(parsed, dict):
        raise ValidationError("filters must be a JSON object.")
    return parsed


@router.delete("/v1/memories/", summary="Delete the memories of a user, agent, app or run ('*' = every)")
def delete_memories(
    caller: Owner,
    platform: Platform,
    user_id: str | None = None,
    agent_id: str | None = None,
    app_id: str | None = None,
    run_id: str | None = None,
    metadata: str | None = None,
    filters: str | None = None,
) -> dict[str, Any]:
    ids = {k: v for k, v in {"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "run_id": run_id}.items() if v}
    raw = _filters_param(filters) or {}
    for name, value in ids.items():
        raw[name] = value if value == "*" else clean_id(name, value)
    if metadata:
        raw["metadata"] = _filters_param(metadata)
    if not any(name in raw for name in pf.ENTITY_KEYS):
        raise ValidationError("At least one of user_id, agent_id, app_id, run_id is required.")
    if all(raw.get(name) == "*" for name in pf.ENTITY_KEYS):
        expr: f.Expr = f.And(())  # all four wildcards: the whole project
    else:
        expr = pf.parse(raw)
    deleted = delete_matching(platform.memories.engine(caller.project_id), expr)
    event_id = platform.memories.record(
        caller.project_id, DELETE, {"filters": raw}, [{"id": i, "event": "DELETE"} for i in deleted]
    )
    return {"message": "Memories deleted successfully!", "event_id": event_id, "deleted": len(deleted)}


# ---- batch ----------------------------------------------------------------------------------------------


def _batch_records(engine: MemoryService, body: BatchBody, verb: str) -> None:
    if len(body.memories) > BATCH_LIMIT:
        raise ValidationError(f"Maximum of {BATCH_LIMIT} memories can be {verb} in a single request")
    if not body.memories:
        raise ValidationError("memories must not be empty.")
    found = engine.store.get_many([checked_id(item.memory_id) for item in body.memories])
    missing = [item.memory_id for item in body.memories if item.memory_id not in found]
    if missing:
        raise NotFoundError(f"Memories not found: {', '.join(missing)}")


@router.put("/v1/batch/", summary="Update up to 1000 memories")
def batch_update(body: BatchBody, caller: Owner, platform: Platform) -> dict[str, str]:
    engine = platform.memories.engine(caller.project_id)
    _batch_records(engine, body, "updated")
    for item in body.memories:
        if item.text is None and item.metadata is None:
            raise ValidationError(f"Memory {item.memory_id}: give text or metadata.")
    for item in body.memories:
        engine.update(UpdateCommand(item.memory_id, text=item.text, metadata=item.metadata))
    return {"message": f"Successfully updated {len(body.memories)} memories"}


@router.delete("/v1/batch/", summary="Delete up to 1000 memories")
def batch_delete(body: BatchBody, caller: Owner, platform: Platform) -> dict[str, str]:
    engine = platform.memories.engine(caller.project_id)
    _batch_records(engine, body, "deleted")
    for item in body.memories:
        engine.delete(item.memory_id)
    return {"message": f"Successfully deleted {len(body.memories)} memories"}
