"""Platform routes over a project's data beside single memories: ping, entities, events, exports, summary,
stats and feedback. All of them answer from the caller's project only."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from mnemo.api.body_guard import MAX_BODY_DEPTH, nests_deeper
from mnemo.api.limits import MAX_PAGE, MAX_PAGE_SIZE, EntityId, entity_types, offset
from mnemo.api.platform.bodies import Lenient
from mnemo.api.platform.dependencies import EventServiceDep, ProjectEntityServiceDep, ReportServiceDep
from mnemo.api.platform.responses.common import Page
from mnemo.api.platform.responses.memories import DeletionOut
from mnemo.api.platform.responses.project_data import (
    EntityCreatedOut,
    EntityFiltersOut,
    EntityOut,
    EntityPage,
    EventOut,
    ExportCreatedOut,
    ExportOut,
    FeedbackOut,
    PingOut,
    StatsOut,
    SummaryOut,
)
from mnemo.api.platform.security import Caller, Owner
from mnemo.api.responses import ErrorAlsoUnderErrorOut, errors
from mnemo.api.routing import TypedRoute
from mnemo.domain.entity_ids import checked_entity_id
from mnemo.errors import ValidationError
from mnemo.services.platform.tenancy.callers import PlatformCaller
from mnemo.services.platform.tenancy.project_entities import ENTITY_TYPES, ProjectEntityService, entity_field

router = APIRouter(route_class=TypedRoute, tags=["platform: project data"])
EntityType = Annotated[str, entity_types(*ENTITY_TYPES)]


@router.get(
    "/v1/ping/",
    summary="Who the key belongs to, and the organization and project it targets",
    responses=errors(401),
)
def ping(caller: Caller) -> PingOut:
    return PingOut.of(caller)


# ---- entities -------------------------------------------------------------------------------------------


@router.get(
    "/v1/entities/",
    summary="The users, agents, apps and runs of the project (with memories, or created)",
    responses=errors(401),
)
def list_entities(
    request: Request,
    caller: Caller,
    entity_service: ProjectEntityServiceDep,
    page_number: Annotated[int, Query(alias="page", ge=1, le=MAX_PAGE)] = 1,
    page_size: Annotated[int, Query(ge=1, le=10_000)] = 10_000,
) -> EntityPage:
    entities = entity_service.listed(caller.project_id)
    return EntityPage.of_entities(request, entities, caller.user.email, page_number, page_size)


@router.get(
    "/v1/entities/filters/",
    summary="What the project's memories can be filtered by: the values in use",
    responses=errors(401),
)
def entity_filters(caller: Caller, entity_service: ProjectEntityServiceDep) -> EntityFiltersOut:
    return EntityFiltersOut.of(entity_service.filter_values(caller.project_id))


class EntityBody(Lenient):
    """POST /v1/users/ (and agents, apps, runs): `<type>_id` names the entity."""

    user_id: Any = None
    agent_id: Any = None
    app_id: Any = None
    run_id: Any = None
    name: Any = None
    metadata: Any = None


def _create_entity(
    entity_type: str, body: EntityBody, caller: PlatformCaller, entity_service: ProjectEntityService
) -> EntityCreatedOut:
    field = entity_field(entity_type)
    for name in ("user_id", "agent_id", "app_id", "run_id"):  # the other kinds' ids are not used, but checked
        value = getattr(body, name)
        if name != field and isinstance(value, str):
            checked_entity_id(value, name)
    entity = entity_service.create(caller.project_id, entity_type, getattr(body, field), body.name, body.metadata)
    return EntityCreatedOut.of(entity)


@router.post(
    "/v1/users/",
    status_code=201,
    summary="Create a user of the project, with a name and metadata",
    response_model_exclude_unset=True,  # user_id, not the other kinds' id keys
    responses=errors(400, 401, 403, 409),
)
def create_user(body: EntityBody, caller: Owner, entity_service: ProjectEntityServiceDep) -> EntityCreatedOut:
    return _create_entity("user", body, caller, entity_service)


@router.post(
    "/v1/agents/",
    status_code=201,
    summary="Create an agent of the project, with a name and metadata",
    response_model_exclude_unset=True,  # agent_id, not the other kinds' id keys
    responses=errors(400, 401, 403, 409),
)
def create_agent(body: EntityBody, caller: Owner, entity_service: ProjectEntityServiceDep) -> EntityCreatedOut:
    return _create_entity("agent", body, caller, entity_service)


@router.post(
    "/v1/apps/",
    status_code=201,
    summary="Create an app of the project, with a name and metadata",
    response_model_exclude_unset=True,  # app_id, not the other kinds' id keys
    responses=errors(400, 401, 403, 409),
)
def create_app(body: EntityBody, caller: Owner, entity_service: ProjectEntityServiceDep) -> EntityCreatedOut:
    return _create_entity("app", body, caller, entity_service)


@router.post(
    "/v1/runs/",
    status_code=201,
    summary="Create a run of the project, with a name and metadata",
    response_model_exclude_unset=True,  # run_id, not the other kinds' id keys
    responses=errors(400, 401, 403, 409),
)
def create_run(body: EntityBody, caller: Owner, entity_service: ProjectEntityServiceDep) -> EntityCreatedOut:
    return _create_entity("run", body, caller, entity_service)


@router.get(
    "/v2/entities/{entity_type}/{entity_id}/",
    summary="One entity of the project (in a one-item array)",
    responses=errors(400, 401, 404),
)
def get_entity(
    entity_type: EntityType, entity_id: EntityId, caller: Caller, entity_service: ProjectEntityServiceDep
) -> list[EntityOut]:
    return [EntityOut.of(entity_service.one(caller.project_id, entity_type, entity_id), caller.user.email)]


@router.delete(
    "/v2/entities/{entity_type}/{entity_id}/",
    summary="Delete an entity: every memory of it",
    response_description="The DELETE event and how many memories it deleted: 0 for an entity with none left (a "
    "memory of several entities goes with the first of them deleted), so that deleting every entity listed "
    "never stops halfway.",
    responses=errors(400, 401, 403),
)
@router.delete(
    "/v1/entities/{entity_type}/{entity_id}/",
    deprecated=True,
    summary="Delete an entity (the older clients' route; the id is the `id` that GET /v1/entities/ lists)",
    response_description="As DELETE /v2/entities/{entity_type}/{entity_id}/.",
    responses=errors(400, 401, 403),
)
def delete_entity(
    entity_type: EntityType, entity_id: EntityId, caller: Owner, entity_service: ProjectEntityServiceDep
) -> DeletionOut:
    deleted = entity_service.delete(caller.project_id, entity_type, entity_id)
    return DeletionOut(message="Entity deleted successfully.", event_id=deleted.event_id, deleted=deleted.count)


# ---- events ---------------------------------------------------------------------------------------------


@router.get(
    "/v1/event/{event_id}/",
    summary="One event (an asynchronous add, a delete) of the project",
    responses=errors(401, 404),
)
def get_event(event_id: str, caller: Caller, events: EventServiceDep) -> EventOut:
    return EventOut.of(events.get(caller.project_id, event_id))


@router.post(
    "/v1/event/{event_id}/cancel/",
    summary="Cancel a job (an asynchronous add, an import) that has not ended (ours)",
    response_description="The event, CANCELLED, as GET /v1/event/{event_id}/ answers it. A PENDING job never "
    "runs; a RUNNING import stops before its next item and keeps what it added (its results, once it has stopped, "
    "say what). 409 for a job that has ended.",
    responses=errors(401, 403, 404, 409),
)
def cancel_event(event_id: str, caller: Owner, events: EventServiceDep) -> EventOut:
    return EventOut.of(events.cancel(caller.project_id, event_id))


@router.get("/v1/events/", summary="The project's events, newest first", responses=errors(401))
def list_events(
    request: Request,
    caller: Caller,
    events: EventServiceDep,
    page_number: Annotated[int, Query(alias="page", ge=1, le=MAX_PAGE)] = 1,
    page_size: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = 50,
) -> Page[EventOut]:
    found = events.page(caller.project_id, offset(page_number, page_size), page_size)
    return Page[EventOut].of(request, [EventOut.of(e) for e in found.events], found.total, page_number, page_size)


# ---- exports, summary, stats, feedback ----------------------------------------------------------------


class ExportGetBody(Lenient):
    memory_export_id: str | None = None
    filters: dict[str, Any] | None = None


class FiltersBody(Lenient):
    filters: dict[str, Any] | None = None


class SummaryBody(FiltersBody):
    prompt: str | None = Field(
        default=None,
        max_length=20_000,
        description="Ours: instructions for the LLM that writes each summary (with an LLM configured; a 400 without).",
    )


class FeedbackBody(Lenient):
    memory_id: Any = None
    feedback: Any = None
    feedback_reason: Any = None


@router.post(
    "/v1/exports/",
    status_code=201,
    summary="Export memories shaped by a JSON schema (filled by the LLM when `export_instructions` are given)",
    description="`schema`: a JSON Schema object, or a string holding one.",
    responses=errors(400, 401, 413, 502),
)
def create_export(body: dict[str, Any], caller: Caller, reports: ReportServiceDep) -> ExportCreatedOut:
    export = reports.create_export(
        caller.project, schema_of(body.get("schema")), body.get("filters"), body.get("export_instructions")
    )
    return ExportCreatedOut.of(export)


def schema_of(raw: Any) -> Any:
    """The export's schema: a JSON object, or a string holding one (the Python client's `schema: str`)."""
    if not isinstance(raw, str):
        return raw
    if nests_deeper(raw.encode("utf-8")):
        raise ValidationError(f"schema nests objects and lists more than {MAX_BODY_DEPTH} deep.")
    try:
        return json.loads(raw)
    except ValueError as invalid:
        raise ValidationError(f"schema is a string that is not JSON: {invalid}.") from None


@router.post(
    "/v1/exports/get/", summary="An export's result: the exported object itself", responses=errors(400, 401, 404)
)
def get_export(body: ExportGetBody, caller: Caller, reports: ReportServiceDep) -> ExportOut:
    return ExportOut(reports.get_export(caller.project, body.memory_export_id, body.filters).result)


@router.post(
    "/v1/summary/",
    summary="Per-entity summaries of the memories the filter selects (written by the LLM when one is configured)",
    response_model_exclude_unset=True,  # each summary names its entity under its own kind's key
    responses=errors(400, 401),
)
def summary(caller: Caller, reports: ReportServiceDep, body: SummaryBody | None = None) -> list[SummaryOut]:
    asked = body or SummaryBody()
    return [SummaryOut.model_validate(s) for s in reports.summary(caller.project, asked.filters, asked.prompt)]


@router.get("/v1/stats/", summary="Counts of the project's memories and calls", responses=errors(401))
def stats(caller: Caller, reports: ReportServiceDep) -> StatsOut:
    return StatsOut.model_validate(reports.stats(caller.project))


@router.post(
    "/v1/feedback/",
    summary="Feedback on a memory (POSITIVE, NEGATIVE, VERY_NEGATIVE, or null to clear)",
    response_model=FeedbackOut,
    responses={
        **errors(400, 401, 403, 404),
        400: {
            "model": ErrorAlsoUnderErrorOut,
            "description": "Invalid input; a memory id that is no UUID: `Invalid memory_id` under `detail` and, as "
            "the reference answers it, `error`.",
        },
    },
)
def feedback(body: FeedbackBody, caller: Owner, reports: ReportServiceDep) -> FeedbackOut | JSONResponse:
    try:
        return FeedbackOut.of(reports.feedback(caller.project, body.memory_id, body.feedback, body.feedback_reason))
    except ValidationError as exc:
        return JSONResponse({"detail": exc.message, "error": exc.message}, status_code=400)
