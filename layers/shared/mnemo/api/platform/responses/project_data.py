"""Answers of the platform routes over a project's data beside single memories:
ping, entities, events, exports, summary, stats and feedback."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, Field, RootModel
from starlette.requests import Request

from mnemo.api.platform.responses.common import Omitted, Page
from mnemo.api.responses import LLMUsageOut, Timestamp
from mnemo.domain.tenancy import EventStatus, Feedback, MemoryExport, PlatformEvent, ProjectEntity
from mnemo.services.platform.jobs.import_results import progress
from mnemo.services.platform.memories.filters import ALLOWED_KEYS
from mnemo.services.platform.tenancy.callers import PlatformCaller
from mnemo.services.platform.tenancy.project_entities import ENTITY_TYPES, EntityView, FilterValues, entity_field

EVENT_TYPES = ("ADD", "UPDATE", "DELETE", "SEARCH", "GET_ALL", "GET", "DELETE_ALL", "DELETE_USER")
EXPORT_RECEIVED: Final = "Memory export request received. The export will be ready in a few seconds."


class PingOut(BaseModel):
    """Who the key belongs to, and the organization and project it targets (the clients need both ids)."""

    status: Literal["ok"]
    org_id: str = Field(examples=["org_6f1c2a9e0b3d4c5e6f7a"])
    project_id: str = Field(examples=["proj_0a1b2c3d4e5f6a7b8c9d"])
    user_email: str = Field(description="The email of the key's user.", examples=["alice@example.com"])

    @classmethod
    def of(cls, caller: PlatformCaller) -> PingOut:
        return cls(
            status="ok", org_id=caller.project.org_id, project_id=caller.project_id, user_email=caller.user.email
        )


# ---- entities -----------------------------------------------------------------------------------------


class EntityOut(BaseModel):
    """A user, agent, app or run of the project: one with memories, or one created (POST /v1/users/ …)."""

    id: str = Field(description="The entity's id: the user_id, agent_id, app_id or run_id.", examples=["alice"])
    name: str = Field(description="Its display name (the id unless one was given).", examples=["alice"])
    type: str = Field(description="Its kind.", examples=["user"], json_schema_extra={"enum": list(ENTITY_TYPES)})
    total_memories: int = Field(description="How many memories it has.", examples=[12])
    created_at: Timestamp
    updated_at: Timestamp
    owner: str = Field(description="The email of the caller.", examples=["alice@example.com"])
    metadata: dict[str, Any] = Field(description="The metadata it was created with ({} when none).")

    @classmethod
    def of(cls, entity: EntityView, owner: str) -> EntityOut:
        return cls(
            id=entity.id,
            name=entity.name,
            type=entity.type,
            total_memories=entity.total_memories,
            created_at=entity.created_at,
            updated_at=entity.updated_at,
            owner=owner,
            metadata=entity.metadata,
        )


class EntityPage(Page[EntityOut]):
    """A page of the project's entities, with the count of each kind over all pages."""

    total_users: int
    total_agents: int
    total_apps: int
    total_runs: int

    @classmethod
    def of_entities(
        cls, request: Request, entities: Sequence[EntityView], owner: str, page_number: int, page_size: int
    ) -> EntityPage:
        start = (page_number - 1) * page_size
        kinds = [e.type for e in entities]
        return cls.of(
            request,
            [EntityOut.of(e, owner) for e in entities[start : start + page_size]],
            len(entities),
            page_number,
            page_size,
            **{f"total_{kind}s": kinds.count(kind) for kind in ENTITY_TYPES},
        )


class EntityFiltersOut(BaseModel):
    """What the project's memories can be filtered by: the values in use."""

    event_type: list[str] = Field(description="The event types.", examples=[list(EVENT_TYPES)])
    categories: list[str] = Field(description="The categories in use.", examples=[["food", "travel"]])
    users: list[str] = Field(examples=[["alice"]])
    agents: list[str] = Field(examples=[["support-bot"]])
    apps: list[str] = Field(examples=[[]])
    runs: list[str] = Field(examples=[[]])
    parameters: list[str] = Field(description="The keys a filter may use.", examples=[["user_id", "created_at"]])

    @classmethod
    def of(cls, values: FilterValues) -> EntityFiltersOut:
        ids = {kind: [e.id for e in values.entities if e.type == kind] for kind in ENTITY_TYPES}
        return cls(
            event_type=list(EVENT_TYPES),
            categories=values.categories,
            users=ids["user"],
            agents=ids["agent"],
            apps=ids["app"],
            runs=ids["run"],
            parameters=[key for key in ALLOWED_KEYS if key not in ("AND", "OR", "NOT")],
        )


class EntityCreatedOut(BaseModel):
    """An entity just created; its id is under `id` and under its kind's key (`user_id`, ... — only that one)."""

    id: str = Field(examples=["alice"])
    user_id: str | Omitted = Field(default=None, description="For a user.", examples=["alice"])
    agent_id: str | Omitted = Field(default=None, description="For an agent.")
    app_id: str | Omitted = Field(default=None, description="For an app.")
    run_id: str | Omitted = Field(default=None, description="For a run.")
    name: str = Field(description="Its display name (the id unless one was given).", examples=["Alice A."])
    metadata: dict[str, Any] = Field(examples=[{"plan": "pro"}])
    created_at: Timestamp
    updated_at: Timestamp
    graph_entities: list[Any] = Field(description="Always empty.", examples=[[]])
    is_deleted: bool = Field(description="Always false.", examples=[False])
    project: str = Field(description="The project's id.", examples=["proj_0a1b2c3d4e5f6a7b8c9d"])

    @classmethod
    def of(cls, entity: ProjectEntity) -> EntityCreatedOut:
        return cls(
            id=entity.entity_id,
            **{entity_field(entity.type): entity.entity_id},
            name=entity.name,
            metadata=entity.metadata,
            created_at=entity.created_at,
            updated_at=entity.updated_at,
            graph_entities=[],
            is_deleted=False,
            project=entity.project_id,
        )


# ---- events -------------------------------------------------------------------------------------------


class EventProgressOut(BaseModel):
    """How far an import is: its items done (added, refused or failed) of its items in all."""

    done: int = Field(examples=[120])
    total: int = Field(examples=[500])


class EventOut(BaseModel):
    """An operation of the project: an asynchronous add or an import (poll it until it has ended: SUCCEEDED,
    PARTIALLY_COMPLETED, FAILED or CANCELLED), a delete."""

    id: str = Field(examples=["5c1e6b0e-8a57-4e8f-9d1a-3b2f4c6d7e8f"])
    event_type: str = Field(description="ADD, IMPORT, DELETE, ...", examples=["ADD"])
    status: EventStatus = Field(
        description="PENDING and RUNNING until it ends: SUCCEEDED; PARTIALLY_COMPLETED (an import some of whose "
        "items were not imported); FAILED; CANCELLED (POST /v1/event/{id}/cancel/)."
    )
    payload: dict[str, Any] = Field(
        description="What was asked; for an import, its `format` and `total` (the items are not repeated); ours, "
        "for an add whose LLM gave no answer it could use, `fallback` `{reason, extractor}`: the rule-based "
        "extractor's memories were stored instead."
    )
    metadata: dict[str, Any] | None = Field(description="The metadata the add asked for; null otherwise.")
    results: list[dict[str, Any]] = Field(
        description="What was done: for an add, per memory, `{id, data: {memory}, event}` and the owner ids; for a "
        "delete `{id, event}`; for an import, per item, `{index, status: ADDED|REFUSED|FAILED, reason?, "
        "memory_ids?}`.",
        examples=[
            [{"id": "a4467c1e-0b53-4b6e-9d43-8c1f0e2a7b55", "data": {"memory": "Is vegetarian"}, "event": "ADD"}]
        ],
    )
    created_at: Timestamp
    updated_at: Timestamp
    started_at: Timestamp | None = Field(description="When a worker started it; null until then.")
    completed_at: Timestamp | None = Field(description="When it finished; null until then.")
    latency: float | None = Field(description="Milliseconds from start to finish; null until finished.")
    graph_status: None = Field(description="Always null.")
    error: str | None = Field(
        description="Why it failed, was cancelled, or (an import) left items out; null otherwise."
    )
    progress: EventProgressOut | None = Field(
        description="Ours: an import's items done and in all, as it runs; null for other events."
    )
    llm_usage: LLMUsageOut | None = Field(
        description="Ours: an add's LLM calls and tokens over all its attempts (zero calls when it called none); "
        "null for other events and for an add no worker has run yet."
    )

    @classmethod
    def of(cls, event: PlatformEvent) -> EventOut:
        latency = None
        if event.started_at is not None and event.completed_at is not None:
            latency = round((event.completed_at - event.started_at).total_seconds() * 1000, 3)
        counted = progress(event)
        return cls(
            id=event.id,
            event_type=event.event_type,
            status=event.status,
            payload={k: v for k, v in event.payload.items() if k != "items"} if counted else event.payload,
            metadata=event.payload.get("metadata"),
            results=event.results,
            created_at=event.created_at,
            updated_at=event.updated_at,
            started_at=event.started_at,
            completed_at=event.completed_at,
            latency=latency,
            graph_status=None,
            error=event.error,
            progress=None if counted is None else EventProgressOut(done=counted[0], total=counted[1]),
            llm_usage=None if event.llm_usage is None else LLMUsageOut.of(event.llm_usage),
        )


# ---- exports, summary, stats, feedback ----------------------------------------------------------------


class ExportCreatedOut(BaseModel):
    message: Literal["Memory export request received. The export will be ready in a few seconds."] = Field(
        examples=[EXPORT_RECEIVED]
    )
    id: str = Field(description="The export's id, for POST /v1/exports/get/.")

    @classmethod
    def of(cls, export: MemoryExport) -> ExportCreatedOut:
        return cls(message=EXPORT_RECEIVED, id=export.id)


class ExportOut(RootModel[dict[str, Any]]):
    """The exported object itself, shaped by the export's JSON schema."""

    root: dict[str, Any] = Field(examples=[{"drinks": ["green tea"]}])


class SummaryOut(BaseModel):
    """The summary of one entity: its id under its kind's key (`user_id`, `agent_id`, `run_id` or `app_id`, only that
    one)."""

    user_id: str | Omitted = None
    agent_id: str | Omitted = None
    run_id: str | Omitted = None
    app_id: str | Omitted = None
    total_memories: int = Field(examples=[3])
    summary: str = Field(
        description="Written by the LLM when one is configured; else its memories, oldest first, as a bullet list.",
        examples=["- Is vegetarian"],
    )
    updated_at: str = Field(description="When its latest memory changed (ISO 8601, UTC).")


class StatsOut(BaseModel):
    """Counts of the project's memories and calls."""

    total_memories: int
    total_retrieval_events: int = Field(description="Searches and reads.")
    total_add_events: int
    total_api_retrieval_events: int
    total_retrieval_events_limit: int | None = Field(description="Always null: no limit.")
    total_users_with_memories: int
    total_agents_with_memories: int
    total_runs_with_memories: int
    memories_per_user: dict[str, int] = Field(examples=[{"alice": 12}])
    memories_per_agent: dict[str, int]
    memories_per_run: dict[str, int]
    llm_usage: LLMUsageOut = Field(
        description="Ours: the LLM calls and tokens of the project's adds and imports, summed over every attempt."
    )


class FeedbackOut(BaseModel):
    id: str = Field(description="The memory's id.")
    feedback: str | None = Field(
        description="POSITIVE, NEGATIVE or VERY_NEGATIVE; null when cleared.", examples=["POSITIVE"]
    )
    feedback_reason: str | None

    @classmethod
    def of(cls, saved: Feedback) -> FeedbackOut:
        return cls(id=saved.memory_id, feedback=saved.feedback, feedback_reason=saved.reason)
