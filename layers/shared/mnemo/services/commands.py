"""What callers ask the memory service for, and what it answers: plain dataclasses, no HTTP.

An add is one `AddCommand` from the request that makes it to the memories it stores. Its JSON form
(`to_json` / `from_json`) is what an asynchronous add keeps in its event until a worker runs it; an edge that
builds one from a request checks its size once (`check_size`), before anything is stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from mnemo.domain.filters import Expr
from mnemo.domain.memory import ACTIVE_ONLY, Event, LifecycleState, MemoryRecord, Scope
from mnemo.errors import PayloadTooLargeError, ValidationError
from mnemo.services.decay import Decay

UNSET: Any = object()

# One add (its messages and metadata) or one update (its text and metadata), as UTF-8 JSON: 100 kB, about 25,000
# tokens. Everything derived from it (the platform event, a memory with its source messages) then fits one
# DynamoDB item (400 KB) with room to spare.
MAX_ADD_BYTES = 100_000


def json_size(value: Any) -> int:
    """Bytes of `value` as compact UTF-8 JSON (what queues and stores keep)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8"))


def check_size(size: int, message: str) -> None:
    """A 413 when `size` is over MAX_ADD_BYTES; `message` says what, with `{size}` and `{limit}` to fill."""
    if size > MAX_ADD_BYTES:
        raise PayloadTooLargeError(message.format(size=f"{size:,}", limit=f"{MAX_ADD_BYTES:,}"))


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: str
    name: str | None = None


Category = tuple[str, str]  # a custom category: (name, description)


@dataclass(frozen=True, slots=True)
class AddCommand:
    messages: list[Message]
    scope: Scope
    metadata: dict[str, Any] = field(default_factory=dict)
    infer: bool = True
    expiration_date: date | None = None
    instructions: str | None = None  # replaces the configured custom instructions for this call
    custom_categories: tuple[Category, ...] = ()  # the categories a memory may be filed under
    categories: tuple[str, ...] | None = None  # exactly these categories for every memory (an import's)
    procedural: bool = False
    timestamp: datetime | None = None  # backdates created_at
    multilingual: bool = False
    immutable: bool = False  # its memories are never updated later (a 409), only deleted
    includes: str | None = None  # what to extract: only facts about these topics (free text)
    excludes: str | None = None  # what never to extract

    def check_size(self) -> None:
        """A 413 when the messages and metadata are over MAX_ADD_BYTES."""
        check_size(
            json_size([[m.role, m.content, m.name] for m in self.messages]) + json_size(self.metadata),
            "One add is {size} bytes of messages and metadata; at most {limit} are accepted. "
            "Split the conversation into several adds.",
        )

    def to_json(self) -> dict[str, Any]:
        """The add as a JSON object (the `payload` of its platform event)."""
        out: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content, "name": m.name} for m in self.messages],
            **self.scope.as_filter(),
            "metadata": self.metadata,
            "infer": self.infer,
            "expiration_date": self.expiration_date.isoformat() if self.expiration_date else None,
            "custom_instructions": self.instructions,
            "custom_categories": [{name: description} for name, description in self.custom_categories],
            "multilingual": self.multilingual,
            "timestamp": int(self.timestamp.timestamp()) if self.timestamp else None,
        }
        if self.procedural:
            out["procedural"] = True
        if self.immutable:
            out["immutable"] = True
        if self.includes:
            out["includes"] = self.includes
        if self.excludes:
            out["excludes"] = self.excludes
        if self.categories is not None:
            out["categories"] = list(self.categories)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> AddCommand:
        """The add `to_json` wrote; ValidationError says what is wrong with anything else."""
        try:
            parsed = _AddJson.model_validate(raw)
        except PydanticValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'add'}: {e['msg']}" for e in exc.errors())
            raise ValidationError(f"Not an add: {problems}.") from exc
        return cls(
            messages=[Message(m.role, m.content, m.name) for m in parsed.messages],
            scope=Scope(user_id=parsed.user_id, agent_id=parsed.agent_id, run_id=parsed.run_id, app_id=parsed.app_id),
            metadata=parsed.metadata,
            infer=parsed.infer,
            expiration_date=parsed.expiration_date,
            instructions=parsed.custom_instructions,
            custom_categories=tuple((name, text) for entry in parsed.custom_categories for name, text in entry.items()),
            procedural=parsed.procedural,
            categories=tuple(parsed.categories) if parsed.categories is not None else None,
            timestamp=datetime.fromtimestamp(parsed.timestamp, tz=UTC) if parsed.timestamp else None,  # 0: none
            multilingual=parsed.multilingual,
            immutable=parsed.immutable,
            includes=parsed.includes,
            excludes=parsed.excludes,
        )


class _MessageJson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: str
    content: str
    name: str | None = None


class _AddJson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    messages: list[_MessageJson] = Field(min_length=1)
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    infer: bool = True
    expiration_date: date | None = None
    custom_instructions: str | None = None
    custom_categories: list[dict[str, str]] = Field(default_factory=list)
    categories: list[str] | None = None
    procedural: bool = False
    timestamp: int | None = None
    multilingual: bool = False
    immutable: bool = False
    includes: str | None = None
    excludes: str | None = None


def check_topics(command: AddCommand) -> None:
    """`includes` and `excludes` say what to extract: an add that extracts nothing (infer=false, a procedural
    summary, an import of given texts) cannot honour them, so it is refused rather than ignoring them."""
    if (command.includes or command.excludes) and (not command.infer or command.procedural or command.categories):
        raise ValidationError(
            "includes and excludes say what to extract; this add extracts nothing (infer=false), so they cannot "
            "apply. Leave them out, or add with infer=true."
        )


def check_memory_size(text: str, metadata: Any) -> None:
    """A 413 when a memory would be larger than MAX_ADD_BYTES of text and metadata (an update merges its
    metadata into the memory's: many updates must not grow it without bound)."""
    check_size(
        json_size(text) + json_size(metadata),
        "The memory would be {size} bytes of text and metadata; at most {limit} are kept. "
        "Send less metadata, or replace it rather than add to it.",
    )


@dataclass(frozen=True, slots=True)
class AddResult:
    record: MemoryRecord
    event: Event
    previous_memory: str | None = None


@dataclass(frozen=True, slots=True)
class SearchCommand:
    query: str
    filters: Expr
    top_k: int = 20
    threshold: float = 0.1
    explain: bool = False
    show_expired: bool = False
    states: tuple[LifecycleState, ...] = ACTIVE_ONLY  # the lifecycle states it finds
    decay: Decay | None = None  # rank by relevance × freshness (a project's v3 search with `decay` on)
    rerank: bool = False  # re-score a wide pool of candidates with the deployment's reranker (400 without one)
    keyword: bool = True  # the keyword (BM25) half of the hybrid search; False: semantic only
    reference_date: datetime | None = None  # "now" for the query's time phrases ("last May"); None: the clock's now


@dataclass(frozen=True, slots=True)
class SearchResult:
    record: MemoryRecord
    score: float
    details: dict[str, Any]


@dataclass(frozen=True, slots=True)
class UpdateCommand:
    memory_id: str
    text: str | None = None
    metadata: dict[str, Any] | None = None
    expiration_date: Any = UNSET  # a date, None to clear, or UNSET to keep
    created_at: datetime | None = None  # when what the memory says happened (the platform's `timestamp`)
    custom_categories: tuple[Category, ...] = ()  # a new text is filed under these (a platform project's)

    def __post_init__(self) -> None:
        check_size(
            json_size(self.text or "") + json_size(self.metadata or {}),
            "The update is {size} bytes of text and metadata; at most {limit} are accepted.",
        )


# ---- Dream: consolidating one user's memories ----------------------------------------------------------------


class DreamAction(StrEnum):
    SYNTHESIZE = "SYNTHESIZE"  # a new memory drawn from several (`derived_from`)
    MERGE = "MERGE"  # memories saying the same thing: one kept (perhaps reworded), the others merged into it
    SUPERSEDE = "SUPERSEDE"  # a memory a newer one made false, kept as superseded by it


@dataclass(frozen=True, slots=True)
class Synthesis:
    text: str
    sources: tuple[str, ...]  # the ids of the memories it is drawn from (two or more)


@dataclass(frozen=True, slots=True)
class Merge:
    keep: str  # the id of the memory kept
    duplicates: tuple[str, ...]  # the ids of the memories merged into it
    text: str | None = None  # the kept memory's new text, saying what all of them said (None: unchanged)


@dataclass(frozen=True, slots=True)
class Supersede:
    outdated: str  # the id of the memory made false…
    current: str  # …by this one


@dataclass(frozen=True, slots=True)
class ConsolidateCommand:
    """What one Dream run decided about the memories of one scope (a user's), by memory id: applied by
    MemoryService.consolidate to the memories as they are then."""

    scope: Scope
    syntheses: tuple[Synthesis, ...] = ()
    merges: tuple[Merge, ...] = ()
    supersedes: tuple[Supersede, ...] = ()
    custom_categories: tuple[Category, ...] = ()  # what a new or reworded memory is filed under (else the defaults)

    def referenced(self) -> list[str]:
        """Every memory id the command names, each once."""
        ids = [m for s in self.syntheses for m in s.sources]
        ids += [m for merge in self.merges for m in (merge.keep, *merge.duplicates)]
        ids += [m for s in self.supersedes for m in (s.outdated, s.current)]
        return list(dict.fromkeys(ids))


@dataclass(frozen=True, slots=True)
class ConsolidationChange:
    """One change a consolidation made: the memory as it is after it, its history event (ADD for a synthesized
    memory, UPDATE for a kept memory reworded, DELETE for one merged or superseded), and why."""

    record: MemoryRecord
    event: Event
    action: DreamAction
    previous_memory: str | None = None
