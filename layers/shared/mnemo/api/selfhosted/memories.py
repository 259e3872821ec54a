"""Self-hosted memory routes: /memories, /search, /reset."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from mnemo.api.dependencies import MemoryServiceDep
from mnemo.api.inline_work import inline_when_local
from mnemo.api.parsing import clean_id, parse_expiration
from mnemo.api.responses import FallbackOut, LLMUsageOut, MessageOut, errors
from mnemo.api.routing import TypedRoute
from mnemo.api.security import Authenticated, authenticated, require_admin
from mnemo.api.selfhosted.bodies import MemoryCreate, MemoryUpdate, SearchRequest, add_command
from mnemo.api.selfhosted.responses import (
    AddedMemory,
    AddResults,
    ListedMemory,
    MemoryChange,
    MemoryDetail,
    MemoryList,
    SearchHit,
    SearchResults,
    StoredMemory,
)
from mnemo.domain import filters as f
from mnemo.domain.memory import CURRENT_AND_OUTDATED
from mnemo.errors import PermissionDeniedError, ValidationError
from mnemo.services.commands import UNSET, SearchCommand, UpdateCommand
from mnemo.services.llm_usage import UsageMeter

# Every route needs a caller; a self-hosted deployment is one team, so every caller sees every memory.
router = APIRouter(
    route_class=TypedRoute, tags=["memories"], dependencies=[Depends(authenticated)], responses=errors(401)
)

IdQuery = Annotated[str | None, Query()]


# The memory shapes send some keys only when they apply: these routes leave out the keys their models did not set.
@router.post("/memories", summary="Create memories", response_model_exclude_unset=True, responses=errors(400, 413, 502))
def add_memories(body: MemoryCreate, memory_service: MemoryServiceDep) -> AddResults:
    command = add_command(body)
    meter = UsageMeter()
    results = memory_service.add(command, meter=meter)
    answer = AddResults(
        results=[AddedMemory.of(r, verbatim=not command.infer) for r in results],
        llm_usage=LLMUsageOut.of(meter.usage),
    )
    if meter.fallback is not None:
        answer.fallback = FallbackOut.of(meter.fallback)  # set only then: an add without one sends no key
    return answer


@router.get(
    "/memories",
    summary="List memories, filtered by user_id, agent_id or run_id",
    response_model_exclude_unset=True,
    responses=errors(400, 403),
)
@inline_when_local
def list_memories(
    memory_service: MemoryServiceDep,
    caller: Authenticated,
    user_id: IdQuery = None,
    agent_id: IdQuery = None,
    run_id: IdQuery = None,
    top_k: Annotated[int | None, Query(ge=0, le=1000)] = None,
    show_expired: bool = False,
) -> MemoryList:
    scope = scope_filter(user_id, agent_id, run_id)
    if not scope and not caller.is_admin:
        raise PermissionDeniedError("Admin role required to list all memories.")
    limit = top_k if top_k is not None else (20 if scope else 1000)
    records = memory_service.get_all(
        f.parse(scope), top_k=limit, show_expired=show_expired, states=CURRENT_AND_OUTDATED
    )
    if not scope:  # every memory, as Mem0 lists its stored rows
        return MemoryList(results=[StoredMemory.of(r) for r in records])
    return MemoryList(results=[ListedMemory.of(r) for r in records])


@router.get("/memories/{memory_id}", summary="Get one memory", response_model_exclude_unset=True, responses=errors(404))
@inline_when_local
def get_memory(memory_id: str, memory_service: MemoryServiceDep) -> MemoryDetail:
    return MemoryDetail.of(memory_service.get(memory_id))


@router.put("/memories/{memory_id}", summary="Update a memory", responses=errors(400, 404, 413, 502))
def update_memory(memory_id: str, body: MemoryUpdate, memory_service: MemoryServiceDep) -> MessageOut:
    expiration: Any = UNSET
    if "expiration_date" in body.model_fields_set:
        expiration = parse_expiration(body.expiration_date)
    memory_service.update(UpdateCommand(memory_id, text=body.text, metadata=body.metadata, expiration_date=expiration))
    return MessageOut(message="Memory updated successfully!")


@router.delete("/memories/{memory_id}", summary="Delete one memory", responses=errors(404))
def delete_memory(memory_id: str, memory_service: MemoryServiceDep) -> MessageOut:
    memory_service.delete(memory_id)
    return MessageOut(message="Memory deleted successfully")


@router.delete(
    "/memories",
    summary="Delete all memories of a user, agent or run",
    dependencies=[Depends(require_admin)],
    responses=errors(400, 403),
)
def delete_all_memories(
    memory_service: MemoryServiceDep, user_id: IdQuery = None, agent_id: IdQuery = None, run_id: IdQuery = None
) -> MessageOut:
    scope = scope_filter(user_id, agent_id, run_id)
    if not scope:
        raise ValidationError("At least one identifier is required.")
    memory_service.delete_all(f.parse(scope))
    return MessageOut(message="All relevant memories deleted")


@router.get("/memories/{memory_id}/history", summary="History of a memory, oldest first", responses=errors(404))
def memory_history(memory_id: str, memory_service: MemoryServiceDep) -> list[MemoryChange]:
    return [MemoryChange.of(h) for h in memory_service.history(memory_id)]


@router.post(
    "/search",
    summary="Search memories (semantic + BM25)",
    response_model_exclude_unset=True,
    responses=errors(400, 502),
)
@inline_when_local
def search_memories(body: SearchRequest, memory_service: MemoryServiceDep) -> SearchResults:
    raw_filters = dict(body.filters or {})
    for name in ("user_id", "agent_id", "run_id"):
        value = clean_id(name, getattr(body, name))
        if value is not None:
            raw_filters[name] = value
    expr = f.parse(raw_filters)
    if not f.mentions_entity(expr):
        raise ValidationError(
            "filters must contain at least one of: user_id, agent_id, run_id. Example: filters={'user_id': 'u1'}"
        )
    results = memory_service.search(
        SearchCommand(
            query=body.query,
            filters=expr,
            top_k=20 if body.top_k is None else body.top_k,
            threshold=0.1 if body.threshold is None else body.threshold,
            explain=body.explain,
            show_expired=body.show_expired,
            states=CURRENT_AND_OUTDATED,
            rerank=body.rerank,
        )
    )
    return SearchResults(results=[SearchHit.of(r, body.explain) for r in results])


@router.post(
    "/reset",
    summary="Delete every memory and all history",
    dependencies=[Depends(require_admin)],
    responses=errors(403),
)
def reset(memory_service: MemoryServiceDep) -> MessageOut:
    memory_service.reset()
    return MessageOut(message="All memories reset")


def scope_filter(user_id: str | None, agent_id: str | None, run_id: str | None) -> dict[str, str]:
    """The ids given in a query string, each checked like the ids of an add."""
    cleaned = {
        name: clean_id(name, value)
        for name, value in (("user_id", user_id), ("agent_id", agent_id), ("run_id", run_id))
        if value
    }
    return {name: value for name, value in cleaned.items() if value is not None}
