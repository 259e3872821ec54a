"""Platform memory routes: v3 add/search/list, the legacy v1/v2 forms, one memory, history, deletes, batch.

Every route works in the caller's project namespace only (the key picks the project): an id of another
project's memory is simply not there, and answers 404. Writes need the OWNER role; reads READER.
"""

from __future__ import annotations

import ast
import json
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from starlette.convertors import Convertor, register_url_convertor

from mnemo.api.inline_work import inline_when_local
from mnemo.api.limits import MAX_FILTERS_PARAM, EntityId, PageNumber, PageSize, entity_types, offset
from mnemo.api.parsing import clean_id, parse_expiration
from mnemo.api.platform.bodies import (
    AddBody,
    BatchBody,
    ListBody,
    SearchBody,
    UpdateBody,
    add_command,
    checked_filter_ids,
    filter_of,
    reject_top_level_ids,
    timestamp_of,
    top_level_ids,
    with_extras,
)
from mnemo.api.platform.dependencies import ProjectMemoryServiceDep
from mnemo.api.platform.responses.common import Page, Results, ResultsAndRelations, select
from mnemo.api.platform.responses.memories import (
    AddedV1Out,
    AddQueuedOut,
    AddQueuedV1Out,
    AddStoredOut,
    DeletionOut,
    HistoryOut,
    MemoryDeletedOut,
    MemoryFieldsOut,
    MemoryItem,
    MemoryOut,
    SearchHitFieldsOut,
    SearchHitOut,
    SearchItem,
)
from mnemo.api.platform.security import Caller, Owner
from mnemo.api.responses import MessageOut, errors
from mnemo.api.routing import TypedRoute
from mnemo.domain import filters as f
from mnemo.domain.tenancy import EventStatus
from mnemo.errors import ValidationError
from mnemo.services.commands import UNSET, SearchCommand, UpdateCommand
from mnemo.services.platform.jobs.project_settings import project_categories
from mnemo.services.platform.memories import filters as pf
from mnemo.services.platform.memories.project_memory import ProjectMemoryService
from mnemo.services.platform.tenancy.callers import PlatformCaller

router = APIRouter(route_class=TypedRoute, tags=["platform: memories"])

MemoryList = list[MemoryItem] | Page[MemoryItem]  # a legacy list: a bare array, or a page when paginated
MAX_LEGACY_LIMIT = 200  # memories of one GET /v1/memories/ (its `limit`; a page_size goes to 1,000)


# ---- add ----------------------------------------------------------------------------------------------


@router.post(
    "/v3/memories/add/",
    summary="Add memories (asynchronous unless infer=false or async_mode=false)",
    response_description="`{event_id, status: PENDING}` when queued; what was stored when infer=false or "
    "async_mode=false.",
    responses=errors(400, 401, 403, 413, 502, 503),
)
def add_v3(body: AddBody, caller: Owner, project_memory: ProjectMemoryServiceDep) -> AddQueuedOut | AddStoredOut:
    event = project_memory.add(caller.project, add_command(body), asynchronous=body.async_mode is not False)
    if event.status is EventStatus.PENDING:
        return AddQueuedOut.of(event)
    return AddStoredOut.of(event)


@router.post(
    "/v1/memories/",
    summary="Add memories (legacy v1)",
    response_description="A one-item array when queued; else the stored memories, as a bare array or (with "
    "output_format=v1.1) under `results`.",
    responses=errors(400, 401, 403, 413, 502, 503),
)
def add_v1(
    body: AddBody, caller: Owner, project_memory: ProjectMemoryServiceDep
) -> list[AddQueuedV1Out] | list[AddedV1Out] | ResultsAndRelations[AddedV1Out]:
    event = project_memory.add(caller.project, add_command(body), asynchronous=body.async_mode is not False)
    if event.status is EventStatus.PENDING:
        return [AddQueuedV1Out.of(event)]
    items = AddedV1Out.all_of(event)
    return ResultsAndRelations[AddedV1Out](results=items, relations=[]) if body.output_format == "v1.1" else items


# ---- search ---------------------------------------------------------------------------------------------


def _search(
    project_memory: ProjectMemoryService, caller: PlatformCaller, body: SearchBody, expr: f.Expr, *, v3: bool = False
) -> list[SearchItem]:
    command = SearchCommand(
        query=body.query,
        filters=with_extras(expr, categories=body.categories, metadata=body.metadata),
        top_k=body.results_wanted(),
        threshold=0.1 if body.threshold is None else body.threshold,
        show_expired=body.show_expired,
        states=body.states(),
        rerank=body.rerank,
        keyword=body.keyword_search is not False,
        reference_date=timestamp_of(body.reference_date, "reference_date"),
    )
    hits = project_memory.search(caller.project, command, v3=v3)
    return [select(SearchHitOut.of(r), body.fields, SearchHitFieldsOut) for r in hits]


@router.post(
    "/v3/memories/search/",
    summary="Search memories (filters required, entity ids inside them)",
    description="With the project's `decay` on, memories are ranked by relevance times a freshness multiplier "
    "(0.3–1.5: recent and recently retrieved memories higher, old and unused ones lower): `score` is that product "
    "within [0, 1] (the threshold applies to relevance first, so a score may fall below it), and `score_breakdown` "
    "adds `relevance` and `decay`. Each memory returned is recorded as retrieved. v1 and v2 search never decay.",
    response_model_exclude_unset=True,
    responses=errors(400, 401, 502),
)
@inline_when_local
def search_v3(body: SearchBody, caller: Caller, project_memory: ProjectMemoryServiceDep) -> Results[SearchItem]:
    reject_top_level_ids(body)
    return Results[SearchItem](results=_search(project_memory, caller, body, filter_of(body.filters), v3=True))


@router.post(
    "/v2/memories/search/",
    summary="Search memories (legacy v2: a bare array)",
    response_model_exclude_unset=True,
    responses=errors(400, 401, 502),
)
@inline_when_local
def search_v2(body: SearchBody, caller: Caller, project_memory: ProjectMemoryServiceDep) -> list[SearchItem]:
    reject_top_level_ids(body)
    return _search(project_memory, caller, body, filter_of(body.filters))


@router.post(
    "/v1/memories/search/",
    summary="Search memories (legacy v1: top-level ids)",
    response_description="A bare array, or (with output_format=v1.1) the hits under `results`.",
    response_model_exclude_unset=True,
    responses=errors(400, 401, 502),
)
@inline_when_local
def search_v1(
    body: SearchBody, caller: Caller, project_memory: ProjectMemoryServiceDep
) -> list[SearchItem] | ResultsAndRelations[SearchItem]:
    results = _search(project_memory, caller, body, filter_of(body.filters, top_level_ids(body)))
    return ResultsAndRelations[SearchItem](results=results, relations=[]) if body.output_format == "v1.1" else results


# ---- list -----------------------------------------------------------------------------------------------


def _list(
    request: Request,
    project_memory: ProjectMemoryService,
    caller: PlatformCaller,
    body: ListBody,
    expr: f.Expr,
    page_number: int | None,
    page_size: int | None,
    *,
    paginate: bool,
) -> MemoryList:
    expr = with_extras(
        expr, categories=body.categories, start_date=body.start_date, end_date=body.end_date, keywords=body.keywords
    )
    number = page_number or body.page or 1
    size = page_size or body.page_size or 100
    first = offset(number, size) if paginate else 0
    found = project_memory.find(
        caller.project_id,
        expr,
        limit=size,
        offset=first,
        show_expired=body.show_expired,
        total=paginate,
        states=body.states(),
    )
    items: list[MemoryItem] = [select(MemoryOut.of(r), body.fields, MemoryFieldsOut) for r in found.records]
    if found.total is None:
        return items
    return Page[MemoryItem].of(request, items, found.total, number, size)


@router.post(
    "/v3/memories/",
    summary="List memories, paginated (page and page_size in the query)",
    response_model_exclude_unset=True,
    responses=errors(400, 401),
)
@inline_when_local
def list_v3(
    request: Request,
    caller: Caller,
    project_memory: ProjectMemoryServiceDep,
    body: ListBody | None = None,
    page: PageNumber = None,
    page_size: PageSize = None,
) -> Page[MemoryItem]:
    body = body or ListBody()
    reject_top_level_ids(body)
    listed = _list(request, project_memory, caller, body, filter_of(body.filters), page, page_size, paginate=True)
    assert isinstance(listed, Page)  # paginate=True: always a page
    return listed


@router.post(
    "/v2/memories/",
    summary="List memories (legacy v2: a bare array unless paginated)",
    response_description="A bare array; a page when both page and page_size are given.",
    response_model_exclude_unset=True,
    responses=errors(400, 401),
)
@inline_when_local
def list_v2(
    request: Request,
    caller: Caller,
    project_memory: ProjectMemoryServiceDep,
    body: ListBody | None = None,
    page: PageNumber = None,
    page_size: PageSize = None,
) -> MemoryList:
    body = body or ListBody()
    reject_top_level_ids(body)
    paginate = (page or body.page) is not None and (page_size or body.page_size) is not None
    return _list(request, project_memory, caller, body, filter_of(body.filters), page, page_size, paginate=paginate)


@router.get(
    "/v1/memories/",
    summary="List memories (legacy v1: ids in the query)",
    response_description="A bare array; a page when both page and page_size are given.",
    response_model_exclude_unset=True,
    responses=errors(400, 401),
)
@inline_when_local
def list_v1(
    request: Request,
    caller: Caller,
    project_memory: ProjectMemoryServiceDep,
    user_id: str | None = None,
    agent_id: str | None = None,
    app_id: str | None = None,
    run_id: str | None = None,
    page: PageNumber = None,
    page_size: PageSize = None,
    limit: Annotated[int | None, Query(ge=1, le=MAX_LEGACY_LIMIT, description="1 to 200.")] = None,
) -> MemoryList:
    ids = {k: v for k, v in {"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "run_id": run_id}.items() if v}
    if not ids:
        raise ValidationError("One of the filters: app_id, user_id, agent_id, run_id is required!")
    body = ListBody(page_size=page_size or limit or 100)
    expr = filter_of(None, ids)
    return _list(request, project_memory, caller, body, expr, page, page_size, paginate=bool(page and page_size))


# ---- one memory -------------------------------------------------------------------------------------

MemoryId = Annotated[
    str, Path(description="The memory's id, a UUID (anything else is a 400).", json_schema_extra={"format": "uuid"})
]


class MemoryIdSegment(Convertor[str]):
    """A memory id in a path: any segment but those of the routes beside it (`search`, `events`, `import`), so that
    /v1/memories/search/ is that route's own (a GET there is a 405 that allows POST, not a get of a memory named
    "search")."""

    regex = "(?!(?:search|events|import)/)[^/]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("memory_id", MemoryIdSegment())
ONE_MEMORY = "/v1/memories/{memory_id:memory_id}/"
MAX_HISTORY_PAGE = 1000


@router.get(
    "/v1/memories/events/",
    summary="The project's newest history entries, of every memory, newest first (legacy: the reference's "
    "memory events)",
    response_description="At most `limit` entries, shaped as GET /v1/memories/{id}/history/ answers them.",
    responses=errors(400, 401),
)
def memory_events(
    caller: Caller,
    project_memory: ProjectMemoryServiceDep,
    limit: Annotated[int, Query(ge=1, le=MAX_HISTORY_PAGE, description="How many entries (1-1,000).")] = 100,
) -> list[HistoryOut]:
    entries, records = project_memory.recent_history(caller.project_id, limit)
    return [HistoryOut.of(e, records.get(e.memory_id)) for e in entries]


@router.get(ONE_MEMORY, summary="Get one memory", responses=errors(400, 401, 404))
@inline_when_local
def get_memory(memory_id: MemoryId, caller: Caller, project_memory: ProjectMemoryServiceDep) -> MemoryOut:
    return MemoryOut.of(project_memory.get(caller.project_id, memory_id))


@router.put(
    ONE_MEMORY,
    summary="Update a memory; returns the updated memory (409: an immutable memory)",
    responses=errors(400, 401, 403, 404, 409, 502),
)
def update_memory(
    memory_id: MemoryId, body: UpdateBody, caller: Owner, project_memory: ProjectMemoryServiceDep
) -> MemoryOut:
    expiration: Any = UNSET
    if "expiration_date" in body.model_fields_set:
        expiration = parse_expiration(body.expiration_date)
    command = UpdateCommand(
        memory_id,
        text=body.text,
        metadata=body.metadata,
        expiration_date=expiration,
        created_at=timestamp_of(body.timestamp),
        custom_categories=project_categories(caller.project),
    )
    return MemoryOut.of(project_memory.update(caller.project_id, command))


@router.delete(
    ONE_MEMORY,
    summary="Delete one memory",
    response_model_exclude_unset=True,
    responses=errors(400, 401, 403, 404),
)
def delete_memory(
    memory_id: MemoryId, caller: Owner, project_memory: ProjectMemoryServiceDep, delete_linked: bool = False
) -> MemoryDeletedOut:
    project_memory.delete(caller.project_id, memory_id)
    if delete_linked:
        return MemoryDeletedOut(message="Memory deleted successfully!", cascade_count=0)
    return MemoryDeletedOut(message="Memory deleted successfully!")


@router.get(ONE_MEMORY + "history/", summary="History of a memory, oldest first", responses=errors(400, 401, 404))
def memory_history(memory_id: MemoryId, caller: Caller, project_memory: ProjectMemoryServiceDep) -> list[HistoryOut]:
    entries, record = project_memory.history(caller.project_id, memory_id)
    return [HistoryOut.of(e, record) for e in entries]


ENTITY_FIELDS = {"user": "user_id", "agent": "agent_id", "app": "app_id", "run": "run_id"}
LegacyEntityType = Annotated[str, entity_types(*ENTITY_FIELDS, *(f"{kind}s" for kind in ENTITY_FIELDS))]


@router.get(
    "/v1/memories/{entity_type}/{entity_id}/",
    summary="The memories of one user, agent, app or run (legacy v1: a bare array, newest first)",
    response_description="A bare array; a page when both page and page_size are given.",
    response_model_exclude_unset=True,
    responses=errors(400, 401),
)
def entity_memories(
    request: Request,
    entity_type: LegacyEntityType,
    entity_id: EntityId,
    caller: Caller,
    project_memory: ProjectMemoryServiceDep,
    page: PageNumber = None,
    page_size: PageSize = None,
) -> MemoryList:
    field = ENTITY_FIELDS.get(entity_type.removesuffix("s"))
    if field is None:
        raise ValidationError("entity_type must be one of user, agent, app or run.")
    body = ListBody(page_size=page_size or 100)
    expr = filter_of(None, {field: entity_id})
    return _list(request, project_memory, caller, body, expr, page, page_size, paginate=bool(page and page_size))


# ---- delete many --------------------------------------------------------------------------------------


JsonParam = Annotated[
    str | None,
    Query(max_length=MAX_FILTERS_PARAM, description="A JSON object (or its Python repr), at most 16,384 characters."),
]


def _filters_param(raw: str | None, name: str = "filters") -> dict[str, Any] | None:
    """`filters` (or `metadata`) in a query string: JSON, or the Python repr the client sends (`{'user_id':
    'alice'}`), its shape checked whole (a key the call's ids replace too)."""
    if raw is None:
        return None
    too_deep = f"filters nests objects and lists more than {f.MAX_FILTER_DEPTH} deep."
    try:
        parsed = json.loads(raw)
    except RecursionError:
        raise ValidationError(too_deep) from None
    except ValueError:
        try:
            parsed = ast.literal_eval(raw)
        except (RecursionError, MemoryError):
            raise ValidationError(too_deep) from None
        except (ValueError, SyntaxError):
            raise ValidationError("filters must be a JSON object.") from None
    if not isinstance(parsed, dict):
        raise ValidationError("filters must be a JSON object.")
    f.check_shape(parsed, name)
    return parsed


@router.delete(
    "/v1/memories/",
    summary="Delete the memories of a user, agent, app or run ('*' = every)",
    responses=errors(400, 401, 403),
)
def delete_memories(
    caller: Owner,
    project_memory: ProjectMemoryServiceDep,
    user_id: str | None = None,
    agent_id: str | None = None,
    app_id: str | None = None,
    run_id: str | None = None,
    metadata: JsonParam = None,
    filters: JsonParam = None,
) -> DeletionOut:
    ids = {k: v for k, v in {"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "run_id": run_id}.items() if v}
    raw = _filters_param(filters) or {}
    checked_filter_ids(raw)
    for name, value in ids.items():
        raw[name] = value if value == "*" else clean_id(name, value)
    if metadata:
        raw["metadata"] = _filters_param(metadata, "metadata")
    if not any(name in raw for name in pf.ENTITY_KEYS):
        raise ValidationError("At least one of user_id, agent_id, app_id, run_id is required.")
    if all(raw.get(name) == "*" for name in pf.ENTITY_KEYS):
        expr: f.Expr = f.And(())  # all four wildcards: the whole project
    else:
        expr = pf.parse(raw)
    deleted = project_memory.delete_matching(caller.project_id, expr, {"filters": raw})
    return DeletionOut(message="Memories deleted successfully!", event_id=deleted.event_id, deleted=deleted.count)


# ---- batch ----------------------------------------------------------------------------------------------


@router.put(
    "/v1/batch/",
    summary="Update up to 1000 memories, all or none (409: one of them is immutable)",
    responses=errors(400, 401, 403, 404, 409, 502),
)
def batch_update(body: BatchBody, caller: Owner, project_memory: ProjectMemoryServiceDep) -> MessageOut:
    categories = project_categories(caller.project)
    commands = [
        UpdateCommand(item.memory_id, text=item.text, metadata=item.metadata, custom_categories=categories)
        for item in body.memories
    ]
    count = project_memory.update_many(caller.project_id, commands)
    return MessageOut(message=f"Successfully updated {count} memories")


@router.delete("/v1/batch/", summary="Delete up to 1000 memories", responses=errors(400, 401, 403, 404))
def batch_delete(body: BatchBody, caller: Owner, project_memory: ProjectMemoryServiceDep) -> MessageOut:
    count = project_memory.delete_many(caller.project_id, [item.memory_id for item in body.memories])
    return MessageOut(message=f"Successfully deleted {count} memories")
