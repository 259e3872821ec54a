"""Answers of the memory routes: /memories, /search.

Keys are declared in wire order. The optional keys of a memory (user_id … state, sources, score_details) are
sent only when they apply: the converters (`of`) set only those keys and the routes use
`response_model_exclude_unset=True`. `metadata` is always sent (null when empty), and so is `score` where the
shape has one.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from mnemo.api.responses import FallbackOut, LLMUsageOut, Timestamp
from mnemo.domain.memory import HistoryEntry, LifecycleState, MemoryRecord, SourceMessage
from mnemo.services.commands import AddResult, SearchResult

EventName = Literal["ADD", "UPDATE", "DELETE", "NONE"]

# The fields of the memory shapes, described once.
MemoryId = Annotated[
    str, Field(description="The memory's id (a UUID).", examples=["a4467c1e-0b53-4b6e-9d43-8c1f2a7b5e90"])
]
Text = Annotated[str, Field(description="The memory's text.", examples=["Lives in Lisbon"])]
Hash = Annotated[str, Field(description="MD5 of the text.", examples=["3341068d21d0b7b773518d08d21450b0"])]
Metadata = Annotated[
    dict[str, Any] | None,
    Field(description="The memory's metadata; null when it has none.", examples=[{"source": "chat"}]),
]
CreatedAt = Annotated[Timestamp, Field(description="When the memory was created (UTC).")]
UpdatedAt = Annotated[Timestamp, Field(description="When the memory last changed (UTC).")]
_Omitted = SkipJsonSchema[None]  # an optional key: absent when unset, never null
UserId = Annotated[str | _Omitted, Field(description="The user it belongs to; absent when none.", examples=["alice"])]
AgentId = Annotated[str | _Omitted, Field(description="The agent it belongs to; absent when none.")]
RunId = Annotated[str | _Omitted, Field(description="The run (session) it belongs to; absent when none.")]
AppId = Annotated[str | _Omitted, Field(description="The application it belongs to; absent when none.")]
ActorId = Annotated[
    str | _Omitted, Field(description="Who said it (the message's name), for memories stored as given.")
]
MessageRole = Annotated[
    str | _Omitted, Field(description="The role of the message, for memories stored as given.", examples=["user"])
]
AttributedTo = Annotated[
    str | _Omitted, Field(description="Whose statement an inferred memory is: user or assistant.", examples=["user"])
]
ExpirationDate = Annotated[
    date | _Omitted, Field(description="YYYY-MM-DD after which the memory is hidden; absent when none.")
]
Categories = Annotated[list[str] | _Omitted, Field(description="The categories it is filed under; absent if none.")]
ReplacedBy = Annotated[str | _Omitted, Field(description="The id of the memory that superseded this one.")]
State = Annotated[
    str | _Omitted, Field(description="The lifecycle state when not active.", examples=[LifecycleState.SUPERSEDED])
]


def memory_keys(record: MemoryRecord) -> dict[str, Any]:
    """The keys of a memory shape that apply to this record: the fixed ones, then the optional ones that are set."""
    keys: dict[str, Any] = {
        "id": record.id,
        "memory": record.text,
        "hash": record.hash,
        "metadata": record.metadata or None,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }
    optional = {
        **record.scope.as_dict(),
        "actor_id": record.actor_id,
        "role": record.role,
        "attributed_to": record.attributed_to,
        "expiration_date": record.expiration_date,
        "categories": list(record.categories) or None,
        "replaced_by": record.replaced_by,
    }
    keys.update({k: v for k, v in optional.items() if v is not None})
    if record.state is not LifecycleState.ACTIVE:
        keys["state"] = record.state.value
    return keys


class AddedMemory(BaseModel):
    """What one add did to one memory."""

    id: MemoryId
    memory: Text
    event: EventName = Field(description="What happened to the memory.", examples=["ADD"])
    previous_memory: str | _Omitted = Field(default=None, description="The text before an UPDATE.")
    actor_id: str | None = Field(
        default=None, description="Who said it (null if unnamed); only for memories stored as given (infer=false)."
    )
    role: str | None = Field(
        default=None, description="The message's role; only for memories stored as given (infer=false)."
    )

    @classmethod
    def of(cls, result: AddResult, verbatim: bool) -> AddedMemory:
        keys: dict[str, Any] = {"id": result.record.id, "memory": result.record.text, "event": result.event.value}
        if result.previous_memory is not None:
            keys["previous_memory"] = result.previous_memory
        if verbatim:
            keys["actor_id"] = result.record.actor_id
            keys["role"] = result.record.role
        return cls.model_validate(keys)


class AddResults(BaseModel):
    """The answer of POST /memories."""

    results: list[AddedMemory] = Field(description="One entry per memory the add touched.")
    llm_usage: LLMUsageOut = Field(
        description="Ours: the LLM calls and tokens this add used (zero calls without an LLM or with infer=false)."
    )
    fallback: FallbackOut | None = Field(
        default=None,
        description="Ours, sent only when it happened: the LLM gave no answer the add could use, so it stored what "
        "the rule-based extractor found (its `llm_usage` still counts the calls spent).",
    )


class MemorySource(BaseModel):
    """A message a memory was extracted from."""

    index: int = Field(description="Its position in the add's messages.", examples=[0])
    role: str = Field(description="Who said it.", examples=["user"])
    content: str = Field(
        description="What was said: the message, or the sentence of it the memory was drawn from (see `span`).",
        examples=["I moved to Lisbon last spring."],
    )
    name: str | _Omitted = Field(default=None, description="The speaker's name, when one was given.")
    span: list[int] | _Omitted = Field(
        default=None,
        description="Where `content` is in the message: [start, end) character offsets; absent when it is the "
        "whole message.",
        examples=[[6, 37]],
    )
    redacted: bool | _Omitted = Field(
        default=None,
        description="true when the source held the text of a memory since deleted: its content was erased (a "
        "delete erases); absent otherwise.",
    )

    @classmethod
    def of(cls, source: SourceMessage) -> MemorySource:
        return cls.model_validate(source.as_dict())


class ListedMemory(BaseModel):
    """A memory as GET /memories lists it (no score)."""

    id: MemoryId
    memory: Text
    hash: Hash
    metadata: Metadata
    created_at: CreatedAt
    updated_at: UpdatedAt
    user_id: UserId = None
    agent_id: AgentId = None
    run_id: RunId = None
    app_id: AppId = None
    actor_id: ActorId = None
    role: MessageRole = None
    attributed_to: AttributedTo = None
    expiration_date: ExpirationDate = None
    categories: Categories = None
    replaced_by: ReplacedBy = None
    state: State = None

    @classmethod
    def of(cls, record: MemoryRecord) -> ListedMemory:
        return cls.model_validate(memory_keys(record))


class StoredMemory(BaseModel):
    """A memory as GET /memories lists it without an id (every memory: an admin's listing). Mem0 answers this
    listing with its stored rows, so every key of its row is always sent: the ids and expiration_date as null when
    unset, metadata as {} when empty. The keys Mem0 has no place for follow, only when set."""

    id: MemoryId
    memory: Text
    user_id: str | None = Field(description="The user it belongs to; null when none.", examples=["alice"])
    agent_id: str | None = Field(description="The agent it belongs to; null when none.")
    run_id: str | None = Field(description="The run (session) it belongs to; null when none.")
    hash: Hash
    expiration_date: date | None = Field(description="YYYY-MM-DD after which the memory is hidden; null when none.")
    metadata: dict[str, Any] = Field(
        description="The memory's metadata; {} when it has none.", examples=[{"source": "chat"}]
    )
    created_at: CreatedAt
    updated_at: UpdatedAt
    app_id: AppId = None
    actor_id: ActorId = None
    role: MessageRole = None
    attributed_to: AttributedTo = None
    categories: Categories = None
    replaced_by: ReplacedBy = None
    state: State = None

    @classmethod
    def of(cls, record: MemoryRecord) -> StoredMemory:
        keys = memory_keys(record)
        row = {
            "id": keys.pop("id"),
            "memory": keys.pop("memory"),
            "user_id": keys.pop("user_id", None),
            "agent_id": keys.pop("agent_id", None),
            "run_id": keys.pop("run_id", None),
            "hash": keys.pop("hash"),
            "expiration_date": keys.pop("expiration_date", None),
            "metadata": keys.pop("metadata") or {},
            "created_at": keys.pop("created_at"),
            "updated_at": keys.pop("updated_at"),
        }
        return cls.model_validate({**row, **keys})


class MemoryList(BaseModel):
    """The answer of GET /memories."""

    results: list[ListedMemory | StoredMemory] = Field(
        description="The memories, newest first: as `ListedMemory` when the listing names a user_id, agent_id or "
        "run_id; as `StoredMemory` (Mem0's stored-row shape) when it names none."
    )


class MemoryDetail(BaseModel):
    """One memory, as GET /memories/{memory_id} answers it: with its sources."""

    id: MemoryId
    memory: Text
    hash: Hash
    metadata: Metadata
    score: None = Field(description="Always null: a memory read by id has no score (Mem0 sends the key).")
    created_at: CreatedAt
    updated_at: UpdatedAt
    user_id: UserId = None
    agent_id: AgentId = None
    run_id: RunId = None
    app_id: AppId = None
    actor_id: ActorId = None
    role: MessageRole = None
    attributed_to: AttributedTo = None
    expiration_date: ExpirationDate = None
    categories: Categories = None
    replaced_by: ReplacedBy = None
    state: State = None
    sources: list[MemorySource] = Field(description="The messages the memory was extracted from.")

    @classmethod
    def of(cls, record: MemoryRecord) -> MemoryDetail:
        return cls.model_validate(
            {**memory_keys(record), "score": None, "sources": [MemorySource.of(s) for s in record.sources]}
        )


class ScoreDetails(BaseModel):
    """How a search result's score was made (explain=true)."""

    model_config = ConfigDict(extra="allow")  # a term the ranking adds later is passed through

    semantic_score: float = Field(description="Cosine similarity of query and memory, clipped to [0, 1].")
    bm25_score: float = Field(description="The keyword (BM25) term, after shaping.")
    bm25_relative: float = Field(description="The BM25 score relative to the best hit's, in [0, 1].")
    bm25_raw: float = Field(description="The raw BM25 score.")
    entity_boost: float = Field(description="Always 0.0 (Mem0's field; no entity boost here).")
    answer_boost: float = Field(
        default=0.0,
        description="What was added because the memory states what the question asks about (where one lives, "
        "works…): 0.3, else 0.0.",
    )
    raw_score: float = Field(description="The weighted sum of the terms.")
    max_possible_score: float = Field(description="The largest raw score this query could reach.")
    final_score: float = Field(
        description="raw_score / max_possible_score (plus answer_boost), at most 1: the result's score."
    )
    threshold: float = Field(description="The threshold of the search.")


class SearchHit(BaseModel):
    """A memory found by POST /search, with its score."""

    id: MemoryId
    memory: Text
    hash: Hash
    metadata: Metadata
    score: float = Field(description="Relevance in [0, 1], rounded to 6 digits.", examples=[0.887897])
    created_at: CreatedAt
    updated_at: UpdatedAt
    user_id: UserId = None
    agent_id: AgentId = None
    run_id: RunId = None
    app_id: AppId = None
    actor_id: ActorId = None
    role: MessageRole = None
    attributed_to: AttributedTo = None
    expiration_date: ExpirationDate = None
    categories: Categories = None
    replaced_by: ReplacedBy = None
    state: State = None
    score_details: ScoreDetails | _Omitted = Field(default=None, description="Only with explain=true.")

    @classmethod
    def of(cls, result: SearchResult, explain: bool) -> SearchHit:
        keys = memory_keys(result.record)
        keys["score"] = round(result.score, 6)
        if explain:
            keys["score_details"] = result.details
        return cls.model_validate(keys)


class SearchResults(BaseModel):
    """The answer of POST /search."""

    results: list[SearchHit] = Field(description="The best matches, best first.")


class MemoryChange(BaseModel):
    """One change of a memory (GET /memories/{memory_id}/history)."""

    id: str = Field(description="The history entry's id.")
    memory_id: MemoryId
    old_memory: str | None = Field(
        description="The text before the change; null for an ADD, and for every entry once the memory is deleted "
        "(a delete erases its texts; the entries keep their event, times, actor and role)."
    )
    new_memory: str | None = Field(
        description="The text after the change; null for a DELETE, and for every entry once the memory is deleted."
    )
    event: EventName = Field(description="What happened.", examples=["UPDATE"])
    created_at: Timestamp = Field(description="When the memory was created (UTC).")
    updated_at: Timestamp = Field(description="When this change happened (UTC).")
    is_deleted: bool = Field(description="True for the DELETE entry.")
    actor_id: str | None = Field(description="Who said it, for memories stored as given.")
    role: str | None = Field(description="The message's role, for memories stored as given.")

    @classmethod
    def of(cls, entry: HistoryEntry) -> MemoryChange:
        return cls.model_validate(
            {
                "id": entry.id,
                "memory_id": entry.memory_id,
                "old_memory": entry.old_memory,
                "new_memory": entry.new_memory,
                "event": entry.event.value,
                "created_at": entry.created_at,
                "updated_at": entry.updated_at,
                "is_deleted": entry.is_deleted,
                "actor_id": entry.actor_id,
                "role": entry.role,
            }
        )
