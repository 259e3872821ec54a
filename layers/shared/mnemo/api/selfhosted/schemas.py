"""Request models and response shapes of the self-hosted memory routes (compat-reference §1.4–§1.5)."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from mnemo.domain.memory import HistoryEntry, MemoryRecord
from mnemo.domain.timefmt import iso
from mnemo.errors import ValidationError
from mnemo.services.commands import AddResult, SearchResult


class MessageIn(BaseModel):
    role: str = Field(min_length=1, examples=["user"])
    content: str = Field(examples=["I moved to Lisbon last spring and I'm allergic to peanuts."])
    name: str | None = None


class MemoryCreate(BaseModel):
    messages: list[MessageIn] = Field(min_length=1)
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None
    metadata: dict[str, Any] | None = None
    expiration_date: str | None = Field(default=None, description="YYYY-MM-DD; the memory is hidden after it.")
    infer: bool | None = Field(default=None, description="Extract facts (default) or store messages as given.")
    memory_type: str | None = Field(default=None, description="Only 'procedural_memory'.")
    prompt: str | None = Field(
        default=None,
        max_length=20_000,
        description="Custom instructions for this call only (at most 20,000 characters).",
    )


class MemoryUpdate(BaseModel):
    text: str | None = None
    metadata: dict[str, Any] | None = None
    expiration_date: str | None = None


class SearchRequest(BaseModel):
    query: str
    filters: dict[str, Any] | None = None
    user_id: str | None = Field(default=None, description="Deprecated: use filters.")
    agent_id: str | None = Field(default=None, description="Deprecated: use filters.")
    run_id: str | None = Field(default=None, description="Deprecated: use filters.")
    top_k: int | None = Field(default=None, ge=0, le=1000)
    threshold: float | None = None
    explain: bool = False
    show_expired: bool = False


def parse_expiration(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value) if len(value) == 10 else _invalid_date()
    except ValueError:
        return _invalid_date()


def _invalid_date() -> date:
    raise ValidationError("expiration_date must be a valid date in YYYY-MM-DD format.")


def clean_id(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    value = str(value).strip()
    if not value or any(c.isspace() for c in value):
        raise ValidationError(f"{name} must be a non-empty string without whitespace.")
    return value


def memory_view(record: MemoryRecord, *, score: bool = True, sources: bool = False) -> dict[str, Any]:
    """The OSS memory shape: fixed keys first, then the optional ones only when set."""
    out: dict[str, Any] = {
        "id": record.id,
        "memory": record.text,
        "hash": record.hash,
        "metadata": record.metadata or None,
    }
    if score:
        out["score"] = None
    out["created_at"] = iso(record.created_at)
    out["updated_at"] = iso(record.updated_at)
    optional = {
        **record.scope.as_dict(),
        "actor_id": record.actor_id,
        "role": record.role,
        "attributed_to": record.attributed_to,
        "expiration_date": record.expiration_date.isoformat() if record.expiration_date else None,
        "categories": list(record.categories) or None,
        "replaced_by": record.replaced_by,
    }
    out.update({k: v for k, v in optional.items() if v is not None})
    if record.state.value != "active":
        out["state"] = record.state.value
    if sources:
        out["sources"] = [s.as_dict() for s in record.sources]
    return out


def search_view(result: SearchResult, explain: bool) -> dict[str, Any]:
    out = memory_view(result.record)
    out["score"] = round(result.score, 6)
    if explain:
        out["score_details"] = result.details
    return out


def add_view(result: AddResult, verbatim: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": result.record.id, "memory": result.record.text, "event": result.event.value}
    if result.previous_memory is not None:
        out["previous_memory"] = result.previous_memory
    if verbatim:
        out["actor_id"] = result.record.actor_id
        out["role"] = result.record.role
    return out


def history_view(entry: HistoryEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "memory_id": entry.memory_id,
        "old_memory": entry.old_memory,
        "new_memory": entry.new_memory,
        "event": entry.event.value,
        "created_at": iso(entry.created_at),
        "updated_at": iso(entry.updated_at),
        "is_deleted": entry.is_deleted,
        "actor_id": entry.actor_id,
        "role": entry.role,
    }
