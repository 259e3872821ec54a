"""Request bodies of the platform routes, and their translation into service commands.

Unknown fields are accepted and ignored (clients send `source`, `output_format`, `version`, ...)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mnemo.api.parsing import clean_id, parse_expiration
from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.errors import ValidationError
from mnemo.services.categories import parse_categories
from mnemo.services.commands import AddCommand, Category, Message
from mnemo.services.platform import filters as pf

TOP_LEVEL_IDS = "Top-level entity parameters (user_id, agent_id, app_id, run_id) are not supported here; pass them in filters, for example filters={'user_id': 'alice'}."  # noqa: E501


# Bounds of what one request may set: they keep a project's record, and the prompt built from it, small.
MAX_INSTRUCTIONS = 20_000  # characters of custom instructions
MAX_CATEGORIES = 100  # custom categories
MAX_NAME = 255  # characters of an organization's or project's name
MAX_DESCRIPTION = 2_000


class Lenient(BaseModel):
    model_config = ConfigDict(extra="allow")


class AddBody(Lenient):
    messages: list[Any] | str | dict[str, Any]
    user_id: str | None = None
    agent_id: str | None = None
    app_id: str | None = None
    run_id: str | None = None
    filters: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    infer: bool = True
    custom_instructions: str | None = Field(default=None, max_length=MAX_INSTRUCTIONS)
    agent_custom_instructions: str | None = Field(default=None, max_length=MAX_INSTRUCTIONS)
    custom_categories: list[Any] | None = Field(default=None, max_length=MAX_CATEGORIES)
    timestamp: int | float | str | None = None
    expiration_date: str | None = None
    async_mode: bool | None = None
    output_format: str | None = None


class SearchBody(Lenient):
    query: str
    filters: dict[str, Any] | None = None
    user_id: str | None = None
    agent_id: str | None = None
    app_id: str | None = None
    run_id: str | None = None
    top_k: int | None = Field(default=None, ge=0, le=1000)
    threshold: float | None = None
    fields: list[str] | None = None
    categories: list[str] | None = None
    metadata: dict[str, Any] | None = None
    show_expired: bool = False
    output_format: str | None = None


class ListBody(Lenient):
    filters: dict[str, Any] | None = None
    user_id: str | None = None
    agent_id: str | None = None
    app_id: str | None = None
    run_id: str | None = None
    page: int | None = Field(default=None, ge=1)
    page_size: int | None = Field(default=None, ge=1, le=1000)
    show_expired: bool = False
    start_date: str | None = None
    end_date: str | None = None
    categories: list[str] | None = None
    fields: list[str] | None = None
    keywords: str | None = None


class UpdateBody(Lenient):
    text: str | None = None
    metadata: dict[str, Any] | None = None
    expiration_date: str | None = None
    timestamp: int | float | str | None = None


class BatchItem(Lenient):
    memory_id: str
    text: str | None = None
    metadata: dict[str, Any] | None = None


class BatchBody(Lenient):
    memories: list[BatchItem]


def top_level_ids(body: BaseModel) -> dict[str, str]:
    found = {name: getattr(body, name, None) for name in pf.ENTITY_KEYS}
    return {k: v for k, v in found.items() if v is not None}


def reject_top_level_ids(body: BaseModel) -> None:
    if top_level_ids(body):
        raise ValidationError(TOP_LEVEL_IDS)


def messages_of(raw: list[Any] | str | dict[str, Any]) -> list[Message]:
    items: list[Any]
    if isinstance(raw, str):
        items = [{"role": "user", "content": raw}]
    elif isinstance(raw, dict):
        items = [raw]
    else:
        items = raw
    out: list[Message] = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("role"), str):
            raise ValidationError(f"messages[{i}] must be an object with a role and a content.")
        content = item.get("content")
        if not isinstance(content, str):
            raise ValidationError(
                f"messages[{i}].content must be text: multimodal content is not supported by this server."
            )
        name = item.get("name")
        out.append(Message(item["role"], content, name if isinstance(name, str) else None))
    if not out:
        raise ValidationError("messages must not be empty.")
    return out


def categories_of(raw: list[Any] | None) -> tuple[Category, ...]:
    """An add's custom_categories: a list of single-entry {name: description} objects."""
    if any(isinstance(item, str) for item in raw or []):
        raise ValidationError("custom_categories must be a list of {name: description} objects.")
    return parse_categories(raw)


def timestamp_of(raw: int | float | str | None) -> datetime | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return f.parse_datetime(raw, "timestamp")
    try:
        return datetime.fromtimestamp(raw, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise ValidationError("timestamp must be Unix seconds.") from None


def add_command(body: AddBody) -> AddCommand:
    """The add the body asks for, its size checked (413) before any work. Its scope comes from the top-level ids
    and from `filters` (both forms are sent); top-level wins."""
    ids = {**pf.entity_ids(body.filters), **top_level_ids(body)}
    scope = Scope(**{name: clean_id(name, value) for name, value in ids.items()})
    if scope.is_empty():
        raise ValidationError("At least one of user_id, agent_id or run_id is required (app_id alone is no scope).")
    instructions = body.custom_instructions
    if body.agent_custom_instructions and scope.agent_id and not scope.user_id:
        instructions = body.agent_custom_instructions
    command = AddCommand(
        messages=messages_of(body.messages),
        scope=scope,
        metadata=dict(body.metadata or {}),
        infer=body.infer,
        expiration_date=parse_expiration(body.expiration_date),
        instructions=instructions,
        custom_categories=categories_of(body.custom_categories),
        timestamp=timestamp_of(body.timestamp),
    )
    command.check_size()
    return command


def names_entity(expr: f.Expr) -> bool:
    """Whether the filter names at least one of user_id, agent_id, app_id, run_id positively."""
    if isinstance(expr, f.Condition):
        return expr.field in pf.ENTITY_KEYS and expr.op in ("eq", "in", "exists")
    if isinstance(expr, f.And | f.Or):
        return any(names_entity(child) for child in expr.children)
    return False


def filter_of(raw: dict[str, Any] | None, extra_ids: dict[str, str] | None = None) -> f.Expr:
    merged = dict(raw or {})
    for name, value in (extra_ids or {}).items():
        merged[name] = clean_id(name, value)
    expr = pf.parse(merged)
    if not names_entity(expr):
        raise ValidationError(
            "filters must contain at least one of user_id, agent_id, app_id, run_id. "
            "Example: filters={'user_id': 'alice'}"
        )
    return expr


def with_extras(
    expr: f.Expr,
    categories: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
    keywords: str | None = None,
) -> f.Expr:
    parts: list[f.Expr] = [expr]
    if categories:
        parts.append(f.Condition("categories", "in", tuple(categories)))
    for key, value in (metadata or {}).items():
        parts.append(f.Condition("metadata", "eq", value, key))
    if start_date:
        parts.append(f.Condition("created_at", "gte", f.parse_datetime(start_date, "start_date")))
    if end_date:
        parts.append(f.Condition("created_at", "lte", f.parse_datetime(end_date, "end_date")))
    if keywords:
        parts.append(f.Condition("memory", "icontains", keywords))
    return f.conjoin(*parts)
