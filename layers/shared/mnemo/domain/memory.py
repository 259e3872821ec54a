"""The memory record, its history entries, and the scope that owns it."""

from __future__ import annotations

import hashlib
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any

from mnemo.domain.entity_ids import checked_storable_id

SCOPE_FIELDS = ("user_id", "agent_id", "run_id")
IDENTITY_FIELDS = ("user_id", "agent_id", "run_id", "app_id", "actor_id")
# The field of an index document that holds the attributes its memory states (its facets, read by a language pack).
FACETS_FIELD = "facets"


class Event(StrEnum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    NONE = "NONE"


class LifecycleState(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"  # made false by a newer memory (`replaced_by`)
    MERGED = "merged"  # said the same as an earlier memory (`replaced_by`), kept hidden
    OUTDATED = "outdated"  # likely outdated: a newer statement of the same subject and attribute (`replaced_by`)


ACTIVE_ONLY: tuple[LifecycleState, ...] = (LifecycleState.ACTIVE,)
# What a read shows unless asked otherwise: the current memories, and those a newer statement likely outdated (with
# their state, below the memory that replaced them).
CURRENT_AND_OUTDATED: tuple[LifecycleState, ...] = (LifecycleState.ACTIVE, LifecycleState.OUTDATED)


def now() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return str(uuid.uuid4())


def text_hash(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def is_clean_text(value: str, *, line_breaks: bool = True) -> bool:
    """Whether `value` holds no control character and no lone UTF-16 surrogate (which no store or index takes as
    text); with `line_breaks`, tab, newline and carriage return are fine (they are in any prose)."""
    if value.isprintable():
        return True
    allowed = "\t\n\r" if line_breaks else ""
    return all(ch in allowed or unicodedata.category(ch) not in ("Cc", "Cs") for ch in value)


@dataclass(frozen=True, slots=True)
class Scope:
    """Who a memory belongs to. At least one of user, agent or run is set on every stored memory, or, on the
    platform, an app alone (the Vercel AI provider and MCP servers scope memories by app)."""

    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None

    def __post_init__(self) -> None:
        for name, value in self.as_dict().items():
            if value is not None:
                checked_storable_id(value, name)

    def is_empty(self) -> bool:
        """No user, agent or run (an app alone is no owner on the self-hosted surface)."""
        return not (self.user_id or self.agent_id or self.run_id)

    def has_owner(self) -> bool:
        """A user, an agent, a run, or at least an app: whose memories these are on the platform."""
        return not self.is_empty() or bool(self.app_id)

    def owner(self) -> str:
        """Whose memories these are, as one key: `user:<id>`, else `agent:<id>`, else `run:<id>`, else `app:<id>`
        ("none" for an empty scope). Work on one owner's memories is applied in order (a queue's message group)."""
        for name, value in (
            ("user", self.user_id),
            ("agent", self.agent_id),
            ("run", self.run_id),
            ("app", self.app_id),
        ):
            if value:
                return f"{name}:{value}"
        return "none"

    def as_filter(self) -> dict[str, str]:
        return {k: v for k, v in self.as_dict().items() if v is not None}

    def as_dict(self) -> dict[str, str | None]:
        return {
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "run_id": self.run_id,
            "app_id": self.app_id,
        }


@dataclass(frozen=True, slots=True)
class SourceMessage:
    """Where a memory came from (its provenance): a message of the add (`index`), whole, or the sentence of it the
    memory was drawn from — `content` is then that sentence, `span` its place in the message
    (`message[start:end]`). `redacted`: the source held the text of a memory since deleted, so its content was
    erased (its place in the add, its role and name are kept)."""

    role: str
    content: str
    index: int
    name: str | None = None
    span: tuple[int, int] | None = None
    redacted: bool = False

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "role": self.role, "content": self.content}
        if self.name:
            out["name"] = self.name
        if self.span is not None:
            out["span"] = list(self.span)
        if self.redacted:
            out["redacted"] = True
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> SourceMessage:
        span = raw.get("span")
        return cls(
            role=raw["role"],
            content=raw["content"],
            index=int(raw["index"]),
            name=raw.get("name"),
            span=(int(span[0]), int(span[1])) if span else None,
            redacted=bool(raw.get("redacted", False)),
        )


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    id: str
    text: str
    hash: str
    scope: Scope
    created_at: datetime
    updated_at: datetime
    metadata: dict[str, Any] = field(default_factory=dict)
    categories: tuple[str, ...] = ()
    actor_id: str | None = None
    role: str | None = None
    attributed_to: str | None = None
    expiration_date: date | None = None
    sources: tuple[SourceMessage, ...] = ()
    state: LifecycleState = LifecycleState.ACTIVE
    replaced_by: str | None = None
    synthesized: bool = False  # written by Dream's synthesis from other memories (`derived_from`)
    derived_from: tuple[str, ...] = ()  # the ids of the memories a synthesized memory was drawn from
    immutable: bool = False  # added with immutable=true: never updated, reworded, merged away or outdated; deletable

    @classmethod
    def create(
        cls,
        text: str,
        scope: Scope,
        *,
        at: datetime | None = None,
        **fields: Any,
    ) -> MemoryRecord:
        stamp = at or now()
        return cls(
            id=new_id(),
            text=text,
            hash=text_hash(text),
            scope=scope,
            created_at=stamp,
            updated_at=stamp,
            **fields,
        )

    def with_text(self, text: str, at: datetime | None = None) -> MemoryRecord:
        return replace(self, text=text, hash=text_hash(text), updated_at=at or now())

    def changed(self, **fields: Any) -> MemoryRecord:
        return replace(self, updated_at=fields.pop("updated_at", None) or now(), **fields)

    def is_expired(self, today: date | None = None) -> bool:
        """Expiry is inclusive of the expiration day, evaluated in UTC."""
        return self.expiration_date is not None and self.expiration_date < (today or now().date())

    def filter_document(self) -> dict[str, Any]:
        """The flat view that filters are evaluated against (see mnemo.domain.filters)."""
        return {
            "id": self.id,
            "memory": self.text,
            **self.scope.as_dict(),
            "actor_id": self.actor_id,
            "role": self.role,
            "categories": list(self.categories),
            "metadata": self.metadata,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "expiration_date": self.expiration_date,
            "state": self.state.value,
        }

    def index_document(self, facets: Sequence[str]) -> dict[str, Any]:
        """What a search index filters by: the filter document, and the attributes the memory states (its `facets`,
        as a language pack reads them: mnemo.ports.facets), which a question about one of them looks for."""
        return {**self.filter_document(), FACETS_FIELD: list(facets)}


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    id: str
    memory_id: str
    event: Event
    old_memory: str | None
    new_memory: str | None
    created_at: datetime
    updated_at: datetime
    actor_id: str | None = None
    role: str | None = None
    is_deleted: bool = False

    @classmethod
    def of(cls, event: Event, record: MemoryRecord, old: str | None, new: str | None) -> HistoryEntry:
        """The entry of a change of `record`; an ADD or UPDATE happens when the record says it was last changed (its
        updated_at, as Mem0 writes it), a DELETE now."""
        return cls(
            id=new_id(),
            memory_id=record.id,
            event=event,
            old_memory=old,
            new_memory=new,
            created_at=record.created_at,
            updated_at=now() if event is Event.DELETE else record.updated_at,
            actor_id=record.actor_id,
            role=record.role,
            is_deleted=event is Event.DELETE,
        )
