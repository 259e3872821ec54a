"""Self-hosted memory routes: /memories, /search, /reset."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from mnemo.api.dependencies import Memories
from mnemo.api.security import Authenticated, authenticated, require_admin
from mnemo.api.selfhosted.schemas import (
    MemoryCreate,
    MemoryUpdate,
    SearchRequest,
    add_view,
    clean_id,
    history_view,
    memory_view,
    parse_expiration,
    search_view,
)
from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.errors import PermissionDeniedError, ValidationError
from mnemo.services.commands import UNSET, AddCommand, Message, SearchCommand, UpdateCommand

# Every route needs a caller; a self-hosted deployment is one team, so every caller sees every memory.
router = APIRouter(tags=["memories"], dependencies=[Depends(authenticated)])

IdQuery = Annotated[str | None, Query()]


@router.post("/memories", summary="Create memories")
def add_memories(body: MemoryCreate, memories: Memories) -> dict[str, Any]:
    scope = Scope(
        user_id=clean_id("user_id", body.user_id),
        agent_id=clean_id("agent_id", body.agent_id),
        run_id=clean_id("run_id", body.run_id),
        app_id=clean_id("app_id", body.app_id),
    )
    if body.memory_type is not None and body.memory_type != "procedural_memory":
        raise ValidationError("Invalid 'memory_type'. Please pass procedural_memory to create procedural memories.")
    infer = body.infer is not False
    results = memories.add(
        AddCommand(
            messages=[Message(m.role, m.content, m.name) for m in body.messages],
            scope=scope,
            metadata=body.metadata or {},
            infer=infer,
            expiration_date=parse_expiration(body.expiration_date),
            instructions=body.prompt,
            procedural=body.memory_type == "procedural_memory",
        )
    )
    return {"results": [add_view(r, verbatim=not infer) for r in results]}


@router.get("/memories", summary="List memories, filtered by user_id, agent_id or run_id")
def list_memories(
    memories: Memories,
    caller: Authenticated,
    user_id: IdQuery = None,
    agent_id: IdQuery = None,
    run_id: IdQuery = None,
    top_k: Annotated[int | None, Query(ge=0, le=1000)] = None,
    show_expired: bool = False,
) -> dict[str, Any]:
    scope = scope_filter(user_id, agent_id, run_id)
    if not scope and not caller.is_admin:
        raise PermissionDeniedError("Admin role required to list all memories.")
    limit = top_k if top_k is not None else (20 if scope else 1000)
    records = memories.get_all(f.parse(scope), top_k=limit, show_expired=show_expired)
    return {"results": [memory_view(r, score=False) for r in records]}


@router.get("/memories/{memory_id}", summary="Get one memory")
def get_memory(memory_id: str, memories: Memories) -> dict[str, Any]:
    return memory_view(memories.get(memory_id), sources=True)


@router.put("/memories/{memory_id}", summary="Update a memory")
def update_memory(memory_id: str, body: MemoryUpdate, memories: Memories) -> dict[str, str]:
    expiration: Any = UNSET
    if "expiration_date" in body.model_fields_set:
        expiration = parse_expiration(body.expiration_date)
    memories.update(UpdateCommand(memory_id, text=body.text, metadata=body.metadata, expiration_date=expiration))
    return {"message": "Memory updated successfully!"}


@router.delete("/memories/{memory_id}", summary="Delete one memory")
def delete_memory(memory_id: str, memories: Memories) -> dict[str, str]:
    memories.delete(memory_id)
    return {"message": "Memory deleted successfully"}


@router.delete(
    "/memories", summary="Delete all memories of a user, agent or run", dependencies=[Depends(require_admin)]
)
def delete_all_memories(
    memories: Memories, user_id: IdQuery = None, agent_id: IdQuery = None, run_id: IdQuery = None
) -> dict[str, str]:
    scope = scope_filter(user_id, agent_id, run_id)
    if not scope:
        raise ValidationError("At least one identifier is required.")
    memories.delete_all(f.parse(scope))
    return {"message": "All relevant memories deleted"}


@router.get("/memories/{memory_id}/history", summary="History of a memory, oldest first")
def memory_history(memory_id: str, memories: Memories) -> list[dict[str, Any]]:
    return [history_view(h) for h in memories.history(memory_id)]


@router.post("/search", summary="Search memories (semantic + BM25)")
def search_memories(body: SearchRequest, memories: Memories) -> dict[str, Any]:
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
    results = memories.search(
        SearchCommand(
            query=body.query,
            filters=expr,
            top_k=20 if body.top_k is None else body.top_k,
            threshold=0.1 if body.threshold is None else body.threshold,
            explain=body.explain,
            show_expired=body.show_expired,
        )
    )
    return {"results": [search_view(r, body.explain) for r in results]}


@router.post("/reset", summary="Delete every memory and all history", dependencies=[Depends(require_admin)])
def reset(memories: Memories) -> dict[str, str]:
    memories.reset()
    return {"message": "All memories reset"}


def scope_filter(user_id: str | None, agent_id: str | None, run_id: str | None) -> dict[str, str]:
    """The ids given in a query string, each checked like the ids of an add."""
    cleaned = {
        name: clean_id(name, value)
        for name, value in (("user_id", user_id), ("agent_id", agent_id), ("run_id", run_id))
        if value
    }
    return {name: value for name, value in cleaned.items() if value is not None}
