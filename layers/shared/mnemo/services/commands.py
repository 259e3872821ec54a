"""What callers ask the memory service for, and what it answers: plain dataclasses, no HTTP."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from mnemo.domain.filters import Expr
from mnemo.domain.memory import Event, MemoryRecord, Scope

UNSET: Any = object()


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class AddCommand:
    messages: list[Message]
    scope: Scope
    metadata: dict[str, Any] = field(default_factory=dict)
    infer: bool = True
    expiration_date: date | None = None
    instructions: str | None = None  # replaces the configured custom instructions for this call
    procedural: bool = False
    timestamp: datetime | None = None  # backdates created_at
    multilingual: bool = False
    categories: tuple[str, ...] = ()


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
