"""What callers ask the memory service for, and what it answers: plain dataclasses, no HTTP."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from mnemo.domain.filters import Expr
from mnemo.domain.memory import Event, MemoryRecord, Scope
from mnemo.errors import PayloadTooLargeError

UNSET: Any = object()

# One add (its messages and metadata) or one update (its text and metadata), as UTF-8 JSON: 100 kB, about 25,000
# tokens. Everything derived from it (the queued job, the platform event, a memory with its source messages)
# then fits one SQS message (256 KiB) and one DynamoDB item (400 KB) with room to spare.
MAX_ADD_BYTES = 100_000


def json_size(value: Any) -> int:
    """Bytes of `value` as compact UTF-8 JSON (what queues and stores keep)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8"))


def check_size(size: int, message: str) -> None:
    """A 413 when `size` is over MAX_ADD_BYTES; `message` says what, with `{size}` and `{limit}` to fill."""
    if size > MAX_ADD_BYTES:
        raise PayloadTooLargeError(message.format(size=f"{size:,}", limit=f"{MAX_ADD_BYTES:,}"))


def check_add_size(messages: Sequence[Message], metadata: Any) -> None:
    check_size(
        json_size([[m.role, m.content, m.name] for m in messages]) + json_size(metadata),
        "One add is {size} bytes of messages and metadata; at most {limit} are accepted. "
        "Split the conversation into several adds.",
    )


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

    def __post_init__(self) -> None:
        check_add_size(self.messages, self.metadata)


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

    def __post_init__(self) -> None:
        check_size(
            json_size(self.text or "") + json_size(self.metadata or {}),
            "The update is {size} bytes of text and metadata; at most {limit} are accepted.",
        )
