"""Platform routes over a project's data beside single memories: ping, entities, events, exports, summary,
stats and feedback. All of them answer from the caller's project only."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from mnemo.api.platform.memories import delete_matching
from mnemo.api.platform.requests import Lenient
from mnemo.api.platform.security import Caller, Owner, Platform
from mnemo.api.platform.views import event_view, page
from mnemo.domain import filters as f
from mnemo.domain.timefmt import iso
from mnemo.errors import NotFoundError
from mnemo.services.platform.entities import (
    ENTITY_TYPES,
    EntityView,
    ProjectEntities,
    entity_condition,
    entity_field,
)
from mnemo.services.platform.filters import ALLOWED_KEYS
from mnemo.services.platform.memories import DELETE
from mnemo.services.platform.services import PlatformServices
from mnemo.services.platform.tenancy import PlatformCaller

router = APIRouter(tags=["platform: project data"])


@router.get("/v1/ping/", summary="Who the key belongs to, and the organization and project it targets")
def ping(caller: Caller) -> dict[str, str]:
    return {
        "status": "ok",
        "org_id": caller.project.org_id,
        "project_id": caller.project_id,
        "user_email": caller.user.email,
    }


# ---- entities -------------------------------------------------------------------------------------------


def entity_view(entity: EntityView, caller: PlatformCaller) -> dict[str, Any]:
    return {
        "id": entity.id,
        "name": entity.name,
        "type": entity.type,
        "total_memories": entity.total_memories,
        "created_at": iso(entity.created_at),
        "updated_at": iso(entity.updated_at),
        "owner": caller.user.email,
        "metadata": entity.metadata,
    }


@router.get("/v1/entities/", summary="The users, agents, apps and runs of the project (with memories, or created)")
def list_entities(
    request: Request,
    caller: Caller,
    platform: Platform,
    page_number: Annotated[int, Query(alias="page", ge=1)] = 1,
    page_size: Annotated[int, Query(ge=1, le=10_000)] = 10_000,
) -> dict[str, Any]:
    entities = ProjectEntities(platform.memories).listed(caller.project_id)
    start = (page_number - 1) * page_size
    body = page(
        request,
        [entity_view(e, caller) for e in entities[start : start + page_size]],
        len(entities),
        page_number,
        page_size,
    )
    kinds = [e.type for e in entities]
    body.update({f"total_{kind}s": kinds.count(kind) for kind in ENTITY_TYPES})
    return body


EVENT_TYPES = ("ADD", "UPDATE", "DELETE", "SEARCH", "GET_ALL", "GET", "DELETE_ALL", "DELETE_USER")


@router.get("/v1/entities/filters/", summary="What the project's memories can be filtered by: the values in use")
def entity_filters(caller: Caller, platform: Platform) -> dict[str, Any]:
    engine = platform.memories.engine(caller.project_id)
    entities = ProjectEntities(platform.memories).listed(caller.project_id)
    categories = sorted(
        {c for record in engine.get_all(f.And(()), top_k=None, show_expired=True) for c in record.categories}
    )
    return {
        "event_type": list(EVENT_TYPES),
        "categories": categories,
        **{f"{kind}s": [e.id for e in entities if e.type == kind] for kind in ENTITY_TYPES},
        "parameters": [key for key in ALLOWED_KEYS if key not in ("AND", "OR", "NOT")],
    }


class EntityBody(Lenient):
    """POST /v1/users/ (and agents, apps, runs): `<type>_id` names the entity."""

    user_id: Any = None
    agent_id: Any = None
    app_id: Any = None
    run_id: Any = None
    name: Any = None
    metadata: Any = None


def _create_entity(
    entity_type: str, body: EntityBody, caller: PlatformCaller, platform: PlatformServices
) -> dict[str, Any]:
    field = entity_field(entity_type)
    entity = ProjectEntities(platform.memories).create(
        caller.project_id, entity_type, getattr(body, field), body.name, body.metadata
    )
    return {
        "id": entity.entity_id,
        field: entity.entity_id,
        "name": entity.name,
        "metadata": entity.metadata,
        "created_at": iso(entity.created_at),
        "updated_at": iso(entity.updated_at),
        "graph_entities": [],
        "is_deleted": False,
        "project": caller.project_id,
    }


@router.post("/v1/users/", status_code=201, summary="Create a user of the project, with a name and metadata")
def create_user(body: EntityBody, caller: Owner, platform: Platform) -> dict[str, Any]:
    return _create_entity("user", body, caller, platform)


@router.post("/v1/agents/", status_code=201, summary="Create an agent of the project, with a name and metadata")
def create_agent(body: EntityBody, caller: Owner, platform: Platform) -> dict[str, Any]:
    return _create_entity("agent", body, caller, platform)


@router.post("/v1/apps/", status_code=201, summary="Create an app of the project, with a name and metadata")
def create_app(body: EntityBody, caller: Owner, platform: Platform) -> dict[str, Any]:
    return _create_entity("app", body, caller, platform)


@router.post("/v1/runs/", status_code=201, summary="Create a run of the project, with a name and metadata")
def create_run(body: EntityBody, caller: Owner, platform: Platform) -> dict[str, Any]:
    return _create_entity("run", body, caller, platform)


@router.get("/v2/entities/{entity_type}/{entity_id}/", summary="One entity of the project")
def get_entity(entity_type: str, entity_id: str, caller: Caller, platform: Platform) -> list[dict[str, Any]]:
    entity = ProjectEntities(platform.memories).one(caller.project_id, entity_type, entity_id)
    if entity is None:
        raise NotFoundError("Entity not found.")
    return [entity_view(entity, caller)]


@router.delete("/v2/entities/{entity_type}/{entity_id}/", summary="Delete an entity: every memory of it")
@router.delete(
    "/v1/entities/{entity_type}/{entity_id}/",
    deprecated=True,
    summary="Delete an entity (the older clients' route; the id is the `id` that GET /v1/entities/ lists)",
)
def delete_entity(entity_type: str, entity_id: str, caller: Owner, platform: Platform) -> dict[str, Any]:
    condition = entity_condition(entity_type, entity_id)
    field = condition.field
    deleted = delete_matching(platform.memories.engine(caller.project_id), condition)
    ProjectEntities(platform.memories).forget(caller.project_id, entity_type, entity_id)
    event_id = platform.memories.record(
        caller.project_id, DELETE, {field: entity_id}, [{"id": i, "event": "DELETE"} for i in deleted]
    )
    return {"message": "Entity deleted successfully.", "event_id": event_id, "deleted": len(deleted)}


# ---- events ---------------------------------------------------------------------------------------------


@router.get("/v1/event/{event_id}/", summary="One event (an asynchronous add, a delete) of the project")
def get_event(event_id: str, caller: Caller, platform: Platform) -> dict[str, Any]:
    event = platform.memories.store.get_event(caller.project_id, event_id)
    if event is None:
        raise NotFoundError("Event not found or you don't have permission to access it.")
    return event_view(event)


@router.get("/v1/events/", summary="The project's events, newest first")
def list_events(
    request: Request,
    caller: Caller,
    platform: Platform,
    page_number: Annotated[int, Query(alias="page", ge=1)] = 1,
    page_size: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> dict[str, Any]:
    store = platform.memories.store
    events = store.events_of_project(caller.project_id, page_size, (page_number - 1) * page_size)
    return page(request, [event_view(e) for e in events], store.count_events(caller.project_id), page_number, page_size)


# ---- exports, summary, stats, feedback ----------------------------------------------------------------


class ExportGetBody(Lenient):
    memory_export_id: str | None = None
    filters: dict[str, Any] | None = None


class FiltersBody(Lenient):
    filters: dict[str, Any] | None = None


class FeedbackBody(Lenient):
    memory_id: Any = None
    feedback: Any = None
    feedback_reason: Any = None


@router.post("/v1/exports/", status_code=201, summary="Export memories shaped by a JSON schema")
def create_export(body: dict[str, Any], caller: Caller, platform: Platform) -> dict[str, str]:
    export = platform.reports.create_export(
        caller.project, body.get("schema"), body.get("filters"), body.get("export_instructions")
    )
    return {
        "message": "Memory export request received. The export will be ready in a few seconds.",
        "id": export.id,
    }


@router.post("/v1/exports/get/", summary="An export's result: the exported object itself")
def get_export(body: ExportGetBody, caller: Caller, platform: Platform) -> dict[str, Any]:
    return platform.reports.get_export(caller.project, body.memory_export_id, body.filters).result


@router.post("/v1/summary/", summary="Per-entity summaries of the memories the filter selects")
def summary(caller: Caller, platform: Platform, body: FiltersBody | None = None) -> list[dict[str, Any]]:
    return platform.reports.summary(caller.project, (body or FiltersBody()).filters)


@router.get("/v1/stats/", summary="Counts of the project's memories and calls")
def stats(caller: Caller, platform: Platform) -> dict[str, Any]:
    return platform.reports.stats(caller.project)


@router.post("/v1/feedback/", summary="Feedback on a memory (POSITIVE, NEGATIVE, VERY_NEGATIVE, or null to clear)")
def feedback(body: FeedbackBody, caller: Owner, platform: Platform) -> dict[str, Any]:
    saved = platform.reports.feedback(caller.project, body.memory_id, body.feedback, body.feedback_reason)
    return {"id": saved.memory_id, "feedback": saved.feedback, "feedback_reason": saved.reason}
