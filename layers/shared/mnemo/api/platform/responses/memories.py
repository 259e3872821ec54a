"""Answers of the platform memory routes: the memory object, search hits, history
entries, and what adds and deletes answer.

A list or search item is the full object, or — when the request's `fields` names some — a selection with only
those keys and `id` (`MemoryFieldsOut`, `SearchHitFieldsOut`; see `common.select`).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Final, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

from mnemo.api.platform.responses.common import Omitted
from mnemo.api.responses import LLMUsageOut, Timestamp
from mnemo.domain.llm_usage import NO_USAGE
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.services.commands import SearchResult

MEMORY_ID = "a4467c1e-0b53-4b6e-9d43-8c1f0e2a7b55"
QUEUED: Final = "Memory processing has been queued for background execution"
STORED: Final = "Memories stored successfully"


class StructuredAttributes(BaseModel):
    """The memory's creation time, broken down (UTC)."""

    year: int = Field(examples=[2026])
    month: int = Field(description="1–12.", examples=[5])
    day: int = Field(description="Day of the month.", examples=[1])
    hour: int = Field(examples=[9])
    minute: int = Field(examples=[30])
    day_of_week: str = Field(description="Lower-case English day name.", examples=["friday"])
    week_of_year: int = Field(description="ISO week number.", examples=[18])
    day_of_year: int = Field(examples=[121])
    quarter: int = Field(description="1–4.", examples=[2])
    is_weekend: bool

    @classmethod
    def of(cls, record: MemoryRecord) -> StructuredAttributes:
        moment = record.created_at
        return cls(
            year=moment.year,
            month=moment.month,
            day=moment.day,
            hour=moment.hour,
            minute=moment.minute,
            day_of_week=moment.strftime("%A").lower(),
            week_of_year=moment.isocalendar().week,
            day_of_year=moment.timetuple().tm_yday,
            quarter=(moment.month - 1) // 3 + 1,
            is_weekend=moment.weekday() >= 5,
        )


class MemoryOut(BaseModel):
    """The platform memory object (GET and PUT /v1/memories/{id}/, list items): the run is `session_id`."""

    id: str = Field(description="The memory's id (a UUID).", examples=[MEMORY_ID])
    memory: str = Field(description="The memory's text.", examples=["Is vegetarian"])
    user_id: str | None = Field(description="The user it belongs to, or null.", examples=["alice"])
    agent_id: str | None = Field(description="The agent it belongs to, or null.", examples=[None])
    app_id: str | None = Field(description="The application it belongs to, or null.", examples=[None])
    session_id: str | None = Field(description="The run (session) it belongs to, or null.", examples=[None])
    metadata: dict[str, Any] | None = Field(description="Its metadata; null when it has none.", examples=[None])
    categories: list[str] = Field(description="The categories it is filed under.", examples=[["food"]])
    created_at: Timestamp = Field(description="When it was created (or the `timestamp` it was backdated to).")
    updated_at: Timestamp = Field(description="When it last changed.")
    expiration_date: date | None = Field(
        description="The day (YYYY-MM-DD, UTC, inclusive) after which it is hidden; null when it never expires."
    )
    structured_attributes: StructuredAttributes
    replaced_by: str | None = Field(
        description="The id of the memory that superseded it or that it was merged into, or null.", examples=[None]
    )
    synthesized: bool = Field(
        description="Whether Dream's Synthesis drew it from other memories (`source_memory_ids`).", examples=[False]
    )
    source_memory_ids: list[str] = Field(
        description="Ours: the ids of the memories a synthesized memory was drawn from (empty for any other); "
        "GET …/dream/memory/{memory_id}/sources/ reads them.",
        examples=[[]],
    )
    lifecycle_state: LifecycleState = Field(
        description="active; superseded (made false by `replaced_by`); or merged (said what `replaced_by` says)."
    )

    @classmethod
    def of(cls, record: MemoryRecord) -> MemoryOut:
        return cls(
            id=record.id,
            memory=record.text,
            user_id=record.scope.user_id,
            agent_id=record.scope.agent_id,
            app_id=record.scope.app_id,
            session_id=record.scope.run_id,
            metadata=record.metadata or None,
            categories=list(record.categories),
            created_at=record.created_at,
            updated_at=record.updated_at,
            expiration_date=record.expiration_date,
            structured_attributes=StructuredAttributes.of(record),
            replaced_by=record.replaced_by,
            synthesized=record.synthesized,
            source_memory_ids=list(record.derived_from),
            lifecycle_state=record.state,
        )


class MemoryFieldsOut(BaseModel):
    """The keys of a memory object (see MemoryOut) that the request's `fields` named, and its `id`."""

    id: str = Field(description="The memory's id (a UUID); always sent.", examples=[MEMORY_ID])
    memory: str | Omitted = None
    user_id: str | None = None
    agent_id: str | None = None
    app_id: str | None = None
    session_id: str | None = None
    metadata: dict[str, Any] | None = None
    categories: list[str] | Omitted = None
    created_at: Timestamp | Omitted = None
    updated_at: Timestamp | Omitted = None
    expiration_date: date | None = None
    structured_attributes: StructuredAttributes | Omitted = None
    replaced_by: str | None = None
    synthesized: bool | Omitted = None
    source_memory_ids: list[str] | Omitted = None
    lifecycle_state: LifecycleState | Omitted = None


MemoryItem = TypeAliasType("MemoryItem", MemoryOut | MemoryFieldsOut)
"""A memory in a list: the whole object, or the keys `fields` selected."""


class ScoreBreakdown(BaseModel):
    """The parts of the fused score."""

    semantic: float | None = Field(description="Similarity of the query and the memory (0–1).", examples=[0.82])
    bm25: float | None = Field(description="Keyword relevance (0–1).", examples=[0.4])
    entity: float | None = Field(description="Boost from entities the query names.", examples=[0.0])
    relevance: float | Omitted = Field(
        default=None,
        description="With decay (v3 search, the project's `decay` on): the fused relevance before decay (0–1).",
        examples=[0.82],
    )
    decay: float | Omitted = Field(
        default=None,
        description="With decay: the memory's freshness multiplier (0.3–1.5); `score` is relevance × decay, "
        "within [0, 1].",
        examples=[1.2],
    )
    rerank: float | Omitted = Field(
        default=None,
        description="With rerank=true: the reranker's score (0–1), what the results are ranked by (plus the answer and "
        "time boosts).",
        examples=[0.91],
    )

    @classmethod
    def of(cls, details: dict[str, Any]) -> ScoreBreakdown:
        extra: dict[str, float] = {}
        if "decay_multiplier" in details:  # only when decay ranked the search: the keys are absent otherwise
            extra = {"relevance": details["relevance_score"], "decay": details["decay_multiplier"]}
        if "rerank_score" in details:  # only with rerank
            extra["rerank"] = details["rerank_score"]
        return cls(
            semantic=details.get("semantic_score"),
            bm25=details.get("bm25_score"),
            entity=details.get("entity_boost", 0.0),
            **extra,
        )


class SearchHitOut(BaseModel):
    """A search hit: the run is `run_id` here (not `session_id`), and the fused score comes with its parts."""

    id: str = Field(description="The memory's id (a UUID).", examples=[MEMORY_ID])
    memory: str = Field(description="The memory's text.", examples=["Is vegetarian"])
    user_id: str | None = Field(description="The user it belongs to, or null.", examples=["alice"])
    agent_id: str | None = Field(description="The agent it belongs to, or null.", examples=[None])
    app_id: str | None = Field(description="The application it belongs to, or null.", examples=[None])
    run_id: str | None = Field(description="The run (session) it belongs to, or null.", examples=[None])
    score: float = Field(description="The fused relevance, 0–1 (6 decimals).", examples=[0.82])
    score_breakdown: ScoreBreakdown
    expiration_date: date | None = Field(description="The day after which it is hidden (YYYY-MM-DD), or null.")
    metadata: dict[str, Any] | None = Field(description="Its metadata; null when it has none.", examples=[None])
    categories: list[str] = Field(description="The categories it is filed under.", examples=[["food"]])
    created_at: Timestamp = Field(description="When it was created.")
    updated_at: Timestamp = Field(description="When it last changed.")

    @classmethod
    def of(cls, result: SearchResult) -> SearchHitOut:
        record = result.record
        details = result.details
        return cls(
            id=record.id,
            memory=record.text,
            user_id=record.scope.user_id,
            agent_id=record.scope.agent_id,
            app_id=record.scope.app_id,
            run_id=record.scope.run_id,
            score=round(result.score, 6),
            score_breakdown=ScoreBreakdown.of(details),
            expiration_date=record.expiration_date,
            metadata=record.metadata or None,
            categories=list(record.categories),
            created_at=record.created_at,
            updated_at=record.updated_at,
        )


class SearchHitFieldsOut(BaseModel):
    """The keys of a search hit (see SearchHitOut) that the request's `fields` named, and its `id`."""

    id: str = Field(description="The memory's id (a UUID); always sent.", examples=[MEMORY_ID])
    memory: str | Omitted = None
    user_id: str | None = None
    agent_id: str | None = None
    app_id: str | None = None
    run_id: str | None = None
    score: float | Omitted = None
    score_breakdown: ScoreBreakdown | Omitted = None
    expiration_date: date | None = None
    metadata: dict[str, Any] | None = None
    categories: list[str] | Omitted = None
    created_at: Timestamp | Omitted = None
    updated_at: Timestamp | Omitted = None


SearchItem = TypeAliasType("SearchItem", SearchHitOut | SearchHitFieldsOut)
"""A search hit: the whole hit, or the keys `fields` selected."""


class HistoryInput(BaseModel):
    """A message the memory was extracted from."""

    role: str = Field(examples=["user"])
    content: str = Field(examples=["I am vegetarian."])


class HistoryOut(BaseModel):
    """One change of a memory (GET /v1/memories/{id}/history/, oldest first); the ids are the memory's now."""

    id: str = Field(description="The history entry's id.")
    memory_id: str = Field(description="The memory's id.", examples=[MEMORY_ID])
    input: list[HistoryInput] = Field(description="The messages the memory came from; empty when unknown.")
    old_memory: str | None = Field(
        description="The text before the change; null for an ADD, and for every entry once the memory is deleted "
        "(a delete erases its texts; the entries keep their event, times, actor and role)."
    )
    new_memory: str | None = Field(
        description="The text after the change; null for a DELETE, and for every entry once the memory is deleted."
    )
    user_id: str | None
    agent_id: str | None
    app_id: str | None
    session_id: str | None = Field(description="The run (session), or null.")
    categories: list[str]
    event: Event = Field(description="What happened.", examples=[Event.ADD])
    metadata: dict[str, Any] | None = Field(description="The memory's metadata; null when it has none.")
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, entry: HistoryEntry, record: MemoryRecord | None) -> HistoryOut:
        return cls(
            id=entry.id,
            memory_id=entry.memory_id,
            input=[HistoryInput(role=s.role, content=s.content) for s in record.sources] if record else [],
            old_memory=entry.old_memory,
            new_memory=entry.new_memory,
            user_id=record.scope.user_id if record else None,
            agent_id=record.scope.agent_id if record else None,
            app_id=record.scope.app_id if record else None,
            session_id=record.scope.run_id if record else None,
            categories=list(record.categories) if record else [],
            event=entry.event,
            metadata=(record.metadata or None) if record else None,
            created_at=entry.created_at,
            updated_at=entry.updated_at,
        )


# ---- adds ---------------------------------------------------------------------------------------------


class AddQueuedOut(BaseModel):
    """An add queued for the worker: follow it at GET /v1/event/{event_id}/."""

    event_id: str = Field(description="The add's event.", examples=["5c1e6b0e-8a57-4e8f-9d1a-3b2f4c6d7e8f"])
    status: Literal[EventStatus.PENDING] = Field(description="PENDING.")

    @classmethod
    def of(cls, event: PlatformEvent) -> AddQueuedOut:
        return cls(event_id=event.id, status=EventStatus.PENDING)


class MemoryText(BaseModel):
    memory: str = Field(description="The stored text.", examples=["Is vegetarian"])


class AddResultOut(BaseModel):
    """One memory an add stored (or found already stored)."""

    id: str = Field(description="The memory's id.", examples=[MEMORY_ID])
    data: MemoryText
    event: Event = Field(description="ADD, or NONE when it was already stored.", examples=[Event.ADD])


class AddStoredOut(BaseModel):
    """An add done at once (infer=false): what it stored."""

    message: Literal["Memories stored successfully"] = Field(examples=[STORED])
    status: EventStatus = Field(description="The add's event status: SUCCEEDED.", examples=[EventStatus.SUCCEEDED])
    event_id: str = Field(description="The add's event.")
    results: list[AddResultOut]
    llm_usage: LLMUsageOut = Field(description="Ours: the add's LLM calls and tokens (none for infer=false).")

    @classmethod
    def of(cls, event: PlatformEvent) -> AddStoredOut:
        return cls(
            message=STORED,
            status=event.status,
            event_id=event.id,
            results=[
                AddResultOut(id=r["id"], data=MemoryText(memory=r["data"]["memory"]), event=r["event"])
                for r in event.results
            ],
            llm_usage=LLMUsageOut.of(event.llm_usage or NO_USAGE),
        )


class AddQueuedV1Out(BaseModel):
    """A legacy v1 add queued for the worker (in a one-item array)."""

    message: Literal["Memory processing has been queued for background execution"] = Field(examples=[QUEUED])
    status: Literal[EventStatus.PENDING] = Field(description="PENDING.")
    event_id: str = Field(description="The add's event: follow it at GET /v1/event/{event_id}/.")

    @classmethod
    def of(cls, event: PlatformEvent) -> AddQueuedV1Out:
        return cls(message=QUEUED, status=EventStatus.PENDING, event_id=event.id)


class AddedV1Out(BaseModel):
    """One memory a legacy v1 add stored."""

    id: str = Field(description="The memory's id.", examples=[MEMORY_ID])
    memory: str = Field(description="The stored text.", examples=["Is vegetarian"])
    event: Event = Field(examples=[Event.ADD])

    @classmethod
    def all_of(cls, event: PlatformEvent) -> list[AddedV1Out]:
        return [cls(id=r["id"], memory=r["data"]["memory"], event=r["event"]) for r in event.results]


# ---- deletes ------------------------------------------------------------------------------------------


class MemoryDeletedOut(BaseModel):
    message: str = Field(examples=["Memory deleted successfully!"])
    cascade_count: int | Omitted = Field(
        default=None, description="Linked memories deleted with it (always 0); sent only with ?delete_linked=true."
    )


class DeletionOut(BaseModel):
    """Memories deleted as one DELETE event."""

    message: str = Field(examples=["Memories deleted successfully!"])
    event_id: str = Field(description="The DELETE event: GET /v1/event/{event_id}/ lists the deleted ids.")
    deleted: int = Field(description="How many memories were deleted.", examples=[3])
