"""Request bodies of the platform routes, and their translation into service commands.

Unknown fields are accepted and ignored (clients send `source`, `output_format`, `version`, ...)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from mnemo.api.limits import (
    JSON_RULE,
    MAX_BATCH,
    MAX_CATEGORIES,
    MAX_DESCRIPTION,
    MAX_FIELDS,
    MAX_INSTRUCTIONS,
    MAX_MESSAGES,
    MAX_NAME,
    MAX_PAGE,
    MAX_PAGE_SIZE,
    MAX_QUERY,
    MAX_SHORT,
    MAX_TOP_K,
    Metadata,
)
from mnemo.api.parsing import clean_id, parse_expiration
from mnemo.domain import filters as f
from mnemo.domain.memory import LifecycleState, Scope
from mnemo.errors import ValidationError
from mnemo.services.categories import parse_categories
from mnemo.services.commands import AddCommand, Category, Message, check_topics
from mnemo.services.messages import messages_of as parsed_messages
from mnemo.services.platform.jobs.import_request import MAX_IMPORT_ITEMS
from mnemo.services.platform.memories import filters as pf

TOP_LEVEL_IDS = "Top-level entity parameters (user_id, agent_id, app_id, run_id) are not supported here; pass them in filters, for example filters={'user_id': 'alice'}."  # noqa: E501


# Bounds of what one request may set (mnemo.api.limits): they keep a project's record, and the prompt built from
# it, small. Entity ids are bounded by the domain (255 characters, 400 beyond); one add's or update's text and
# metadata by its size (100 kB, 413 beyond).
ID = "A user, agent, app or run id: at most 255 characters, no whitespace or control characters."


class Lenient(BaseModel):
    """Bodies of the clients' routes: keys the mem0 clients send beside the documented ones (source, version, ...)
    are accepted."""

    model_config = ConfigDict(extra="allow")


class AddBody(Lenient):
    messages: Annotated[list[Any], Field(max_length=MAX_MESSAGES)] | Annotated[str, Field()] | dict[str, Any] = Field(
        description=f"The conversation: a list of {{role, content, name?}} (at most {MAX_MESSAGES:,}), one message "
        "object, or a string (a user message). With the metadata: at most 100 kB (413 beyond)."
    )
    user_id: str | None = Field(default=None, description=ID)
    agent_id: str | None = Field(default=None, description=ID)
    app_id: str | None = Field(default=None, description=ID)
    run_id: str | None = Field(default=None, description=ID)
    filters: dict[str, Any] | None = Field(default=None, description="The add's ids, as filters name them.")
    metadata: Metadata | None = Field(default=None, description=JSON_RULE)
    infer: StrictBool = Field(default=True, description="Extract facts (default) or store the messages as given.")
    custom_instructions: str | None = Field(default=None, max_length=MAX_INSTRUCTIONS)
    agent_custom_instructions: str | None = Field(default=None, max_length=MAX_INSTRUCTIONS)
    custom_categories: list[Any] | None = Field(default=None, max_length=MAX_CATEGORIES)
    timestamp: int | float | Annotated[str, Field(max_length=MAX_SHORT)] | None = Field(
        default=None, description="When it happened: Unix seconds, or an ISO 8601 date and time."
    )
    expiration_date: str | None = Field(default=None, max_length=MAX_SHORT, description="YYYY-MM-DD.")
    async_mode: bool | None = Field(
        default=None,
        description="false: the add runs before the answer, which holds what was stored (as infer=false does); "
        "unset or true: an inferred add is queued (`PENDING`).",
    )
    output_format: str | None = Field(default=None, max_length=MAX_SHORT)
    includes: str | None = Field(
        default=None,
        max_length=MAX_DESCRIPTION,
        description="What to extract: only facts about these topics (free text, e.g. 'food, travel'). With an LLM "
        "the extraction reads it; without one, a statement is kept when it is close in meaning to one of its topics "
        "(approximate: README). Not with infer=false (400).",
    )
    excludes: str | None = Field(
        default=None,
        max_length=MAX_DESCRIPTION,
        description="What never to extract (free text, e.g. 'health, my kids'); as `includes`, the other way.",
    )
    immutable: bool = Field(
        default=False,
        description="The memories this add makes can never be updated (a 409 says so); they can still be deleted, "
        "and later adds never reword, merge away or outdate them.",
    )


class ReadsLifecycle(Lenient):
    """The Dream read options of search and list."""

    latest_only: bool = Field(
        default=False, description="Dream: only current memories (no superseded ones, which are shown by default)."
    )
    include_merged: bool = Field(
        default=False, description="Dream: also the memories merged into another one (hidden by default)."
    )

    def states(self) -> tuple[LifecycleState, ...]:
        """The lifecycle states asked for: active, superseded and outdated by default; `latest_only` drops
        superseded and outdated, `include_merged` adds merged."""
        states = [LifecycleState.ACTIVE]
        if not self.latest_only:
            states += [LifecycleState.SUPERSEDED, LifecycleState.OUTDATED]
        if self.include_merged:
            states.append(LifecycleState.MERGED)
        return tuple(states)


class SearchBody(ReadsLifecycle):
    query: str = Field(max_length=MAX_QUERY, description="What to look for (at most 4,000 characters).")
    filters: dict[str, Any] | None = None
    user_id: str | None = Field(default=None, description=ID)
    agent_id: str | None = Field(default=None, description=ID)
    app_id: str | None = Field(default=None, description=ID)
    run_id: str | None = Field(default=None, description=ID)
    top_k: int | None = Field(default=None, ge=0, le=MAX_TOP_K, description="At most this many results (10).")
    limit: int | None = Field(
        default=None,
        ge=0,
        le=MAX_TOP_K,
        description="The older name of top_k, which the reference's MCP server still sends: the same; both, and "
        "different, is a 400.",
    )
    threshold: float | None = None
    fields: list[Annotated[str, Field(max_length=MAX_SHORT)]] | None = Field(default=None, max_length=MAX_FIELDS)
    categories: list[Annotated[str, Field(max_length=MAX_NAME)]] | None = Field(default=None, max_length=MAX_CATEGORIES)
    metadata: Metadata | None = Field(default=None, description=JSON_RULE)
    show_expired: bool = False
    output_format: str | None = Field(default=None, max_length=MAX_SHORT)
    rerank: bool = Field(
        default=False,
        description="Re-score a wide pool of candidates (the best 100 semantic and 100 keyword matches) with the "
        "reranker, a model fitted on LoCoMo over the search's signals and how each memory sits among the others "
        "(README, Search).",
    )
    keyword_search: bool | None = Field(
        default=None,
        description="Whether keyword (BM25) matches are searched and scored beside the semantic ones: true or unset, "
        "the hybrid search; false, semantic only.",
    )
    reference_date: int | float | Annotated[str, Field(max_length=MAX_SHORT)] | None = Field(
        default=None,
        description="The search's now (Unix seconds, YYYY-MM-DD or ISO 8601): the query's time phrases ('last May', "
        "'two weeks ago') are resolved against it (unset: the current time), and memories of that time rank higher.",
    )

    def results_wanted(self, default: int = 10) -> int:
        """How many results: top_k, or its older name limit (a 400 when both are given and differ)."""
        if self.top_k is not None and self.limit is not None and self.top_k != self.limit:
            raise ValidationError(f"top_k ({self.top_k}) and limit ({self.limit}) disagree: send top_k alone.")
        for wanted in (self.top_k, self.limit):
            if wanted is not None:
                return wanted
        return default


class ListBody(ReadsLifecycle):
    filters: dict[str, Any] | None = None
    user_id: str | None = Field(default=None, description=ID)
    agent_id: str | None = Field(default=None, description=ID)
    app_id: str | None = Field(default=None, description=ID)
    run_id: str | None = Field(default=None, description=ID)
    page: int | None = Field(default=None, ge=1, le=MAX_PAGE)
    page_size: int | None = Field(default=None, ge=1, le=MAX_PAGE_SIZE)
    show_expired: bool = False
    start_date: str | None = Field(default=None, max_length=MAX_SHORT)
    end_date: str | None = Field(default=None, max_length=MAX_SHORT)
    categories: list[Annotated[str, Field(max_length=MAX_NAME)]] | None = Field(default=None, max_length=MAX_CATEGORIES)
    fields: list[Annotated[str, Field(max_length=MAX_SHORT)]] | None = Field(default=None, max_length=MAX_FIELDS)
    keywords: str | None = Field(default=None, max_length=MAX_DESCRIPTION)


class UpdateBody(Lenient):
    text: str | None = Field(default=None, description="The new text (with the metadata: at most 100 kB).")
    metadata: Metadata | None = Field(default=None, description=JSON_RULE)
    expiration_date: str | None = Field(default=None, max_length=MAX_SHORT)
    timestamp: int | float | Annotated[str, Field(max_length=MAX_SHORT)] | None = None


class BatchItem(Lenient):
    memory_id: str = Field(max_length=MAX_SHORT, description="The memory's id (a UUID).")
    text: str | None = None
    metadata: Metadata | None = Field(default=None, description=JSON_RULE)


class BatchBody(Lenient):
    memories: list[BatchItem] = Field(description=f"At most {MAX_BATCH:,} memories (400 beyond).")


class ImportBody(Lenient):
    """POST /v1/memories/import/ (ours): many conversations and memories, run as one job."""

    items: list[Any] | dict[str, Any] = Field(
        description=f"What to import, at most {MAX_IMPORT_ITEMS:,} items (400 beyond). A list of items, each a "
        "conversation `{messages, user_id?, agent_id?, app_id?, run_id?, metadata?, infer?, timestamp?}` (added as "
        "one add is) or a memory `{memory (or text), user_id?, …, metadata?, categories?, created_at?, "
        "expiration_date?}` (stored verbatim, as an infer=false add); or an export as it was answered: this "
        "server's (POST /v1/exports/get/: the memories are the entries of its lists) or Mem0's (get_memory_export, "
        "or get_all's memories, `{results: [...]}`). Each item is checked as one add is (at most 100 kB): one that "
        "cannot be added is refused, with the reason, and the others are imported.",
        examples=[[{"memory": "Is vegetarian", "user_id": "alice", "categories": ["food"]}]],
    )
    format: Literal["auto", "items", "mnemo", "mem0"] = Field(
        default="auto",
        description="How `items` is read: `items` (a list of conversations and memories), `mnemo` (an export of "
        "this server), `mem0` (a Mem0 export), or `auto` (a list is items; an object with a `results` list is Mem0's "
        "get_all; any other object an export).",
    )
    user_id: str | None = Field(default=None, description=f"{ID} The id of every item that names none.")
    agent_id: str | None = Field(default=None, description=f"{ID} The id of every item that names none.")
    app_id: str | None = Field(default=None, description=f"{ID} The id of every item that names none.")
    run_id: str | None = Field(default=None, description=f"{ID} The id of every item that names none.")
    infer: StrictBool = Field(default=True, description="Whether a conversation that does not say is inferred.")


def top_level_ids(body: BaseModel) -> dict[str, str]:
    found = {name: getattr(body, name, None) for name in pf.ENTITY_KEYS}
    return {k: v for k, v in found.items() if v is not None}


def reject_top_level_ids(body: BaseModel) -> None:
    if top_level_ids(body):
        raise ValidationError(TOP_LEVEL_IDS)


def messages_of(raw: list[Any] | str | dict[str, Any]) -> list[Message]:
    """An add's messages: a list of {role, content, name?}, one message object, or a string (a user message); an
    import's conversations are read alike."""
    return parsed_messages(raw)


def categories_of(raw: list[Any] | None) -> tuple[Category, ...]:
    """An add's custom_categories: a list of single-entry {name: description} objects."""
    if any(isinstance(item, str) for item in raw or []):
        raise ValidationError("custom_categories must be a list of {name: description} objects.")
    return parse_categories(raw)


def timestamp_of(raw: int | float | str | None, name: str = "timestamp") -> datetime | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return f.parse_datetime(raw, name)
    try:
        return datetime.fromtimestamp(raw, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise ValidationError(f"{name} must be Unix seconds.") from None


def add_command(body: AddBody) -> AddCommand:
    """The add the body asks for, its size checked (413) before any work. Its scope comes from the top-level ids
    and from `filters` (both forms are sent); top-level wins, and the filters are checked all the same."""
    if body.filters is not None:
        f.check_shape(body.filters)
        checked_filter_ids(body.filters)
    ids = {**pf.entity_ids(body.filters), **top_level_ids(body)}
    scope = Scope(**{name: clean_id(name, value) for name, value in ids.items()})
    if not scope.has_owner():
        raise ValidationError("At least one of user_id, agent_id, run_id or app_id is required.")
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
        immutable=body.immutable,
        includes=body.includes or None,
        excludes=body.excludes or None,
    )
    check_topics(command)
    command.check_size()
    return command


def names_entity(expr: f.Expr) -> bool:
    """Whether the filter names at least one of user_id, agent_id, app_id, run_id positively."""
    if isinstance(expr, f.Condition):
        return expr.field in pf.ENTITY_KEYS and expr.op in ("eq", "in", "exists")
    if isinstance(expr, f.And | f.Or):
        return any(names_entity(child) for child in expr.children)
    return False


def checked_filter_ids(raw: dict[str, Any] | None) -> None:
    """The ids a filter object pins, held to the id rule (mnemo.domain.entity_ids) even where a top-level id of the
    same name replaces them."""
    for name, value in pf.entity_ids(raw).items():
        clean_id(name, value)


def filter_of(raw: dict[str, Any] | None, extra_ids: dict[str, str] | None = None) -> f.Expr:
    """The filters with the top-level ids put in (they replace the same keys: those are checked first)."""
    if raw:
        f.check_shape(raw)
        checked_filter_ids(raw)
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
