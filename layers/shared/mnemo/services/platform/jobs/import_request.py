"""What an import is: a list of items, or an export of this server or of Mem0's, read and checked into the adds
it makes (jobs/imports.py runs them). An item that cannot be added is refused with the reason; what is no import at
all is a ValidationError.

What is imported (`parse_import`) is one of:
- `items`: a list, each item a conversation `{"messages", <ids>, "metadata"?, "infer"?, "timestamp"?}` (added as
  one add is) or a memory `{"memory" (or "text"), <ids>, "metadata"?, "categories"?, "created_at"?}` (stored
  verbatim, as an infer=false add);
- `mnemo`: an export of this server, the object POST /v1/exports/get/ answers: its lists hold the memories
  (objects named like memory fields, or texts), and a property `user_id` (… `run_id`) the export's shared id;
- `mem0`: a Mem0 platform export: the object get_memory_export answers (read as ours), or Mem0's memories as
  get_all answers them (a list, or `{"results": [...]}`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from mnemo.domain.entity_ids import checked_entity_id
from mnemo.domain.filters import parse_datetime
from mnemo.domain.json_shape import json_problem
from mnemo.domain.memory import Scope
from mnemo.errors import ValidationError
from mnemo.services.commands import AddCommand, Message
from mnemo.services.messages import messages_of
from mnemo.services.platform.jobs.import_results import REFUSED, result

MAX_IMPORT_ITEMS = 1_000  # conversations and memories of one import
MAX_ITEM_CATEGORIES = 100
MAX_CATEGORY_NAME = 255
FORMATS = ("auto", "items", "mnemo", "mem0")
Read = Literal["items", "mnemo", "mem0"]  # what an import was read as
ENTITY_KEYS = ("user_id", "agent_id", "app_id", "run_id")


@dataclass(frozen=True, slots=True)
class ImportItem:
    """One item of an import, checked: the add it is (`index`: its place in what was sent)."""

    index: int
    command: AddCommand


@dataclass(frozen=True, slots=True)
class ImportRequest:
    format: Read
    items: list[ImportItem]  # the items to add
    refused: list[dict[str, Any]]  # the results of the items that cannot be added

    @property
    def total(self) -> int:
        return len(self.items) + len(self.refused)


def parse_import(
    raw: Any, fmt: str = "auto", ids: Mapping[str, Any] | None = None, *, infer: bool = True
) -> ImportRequest:
    """The import `raw` is (a list of items, or an export: see the module), every item checked. `ids`: the user,
    agent, app and run ids of the items that name none; `infer`: of the conversations that do not say. What is no
    import at all (nothing to import, more than MAX_IMPORT_ITEMS, a format it is not) is a ValidationError; an
    item that cannot be added is REFUSED, with the reason."""
    read, entries, shared = _entries(raw, fmt)
    if not entries:
        raise ValidationError("Nothing to import: items holds no conversation or memory.")
    if len(entries) > MAX_IMPORT_ITEMS:
        raise ValidationError(
            f"An import takes at most {MAX_IMPORT_ITEMS:,} items (conversations and memories); this one has "
            f"{len(entries):,}. Split it into several imports."
        )
    defaults = _scope_ids(ids or {}, "the import's ") or shared
    items: list[ImportItem] = []
    refused: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        try:
            items.append(ImportItem(index, item_command(entry, defaults, infer)))
        except ValidationError as exc:  # a PayloadTooLargeError too: the item's size, over one add's
            refused.append(result(index, REFUSED, reason=exc.message))
    return ImportRequest(read, items, refused)


def _entries(raw: Any, fmt: str) -> tuple[Read, list[Any], dict[str, str]]:
    """What the import holds: the format it was read as, its entries, and the ids an export shares."""
    if fmt not in FORMATS:
        raise ValidationError(f"format must be one of {', '.join(FORMATS)}.")
    if isinstance(raw, list):
        if fmt == "mnemo":
            raise ValidationError(
                "format mnemo is an export of this server: the object POST /v1/exports/get/ answers, not a list."
            )
        return ("mem0" if fmt == "mem0" else "items"), raw, {}
    if not isinstance(raw, Mapping):
        raise ValidationError("items must be a list of conversations and memories, or an export (an object).")
    if fmt == "items":
        raise ValidationError("format items is a list of conversations and memories, not an object.")
    listed = raw.get("results")
    if isinstance(listed, list) and fmt in ("auto", "mem0"):  # Mem0's get_all answer, paginated or not
        return "mem0", listed, {}
    entries: list[Any] = []
    shared: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, list):
            entries.extend(value)
        elif key in ENTITY_KEYS and isinstance(value, str):  # the id every exported memory has
            shared[key] = value
    return ("mem0" if fmt == "mem0" else "mnemo"), entries, _scope_ids(shared, "the export's ")


def item_command(entry: Any, defaults: Mapping[str, str], infer: bool) -> AddCommand:
    """The add one item is: a conversation (`messages`), or a memory (`memory`, `text`, `content` or
    `data.memory`; a bare text too), stored verbatim. ValidationError says what is wrong with it."""
    if isinstance(entry, str):
        entry = {"memory": entry}
    if not isinstance(entry, Mapping):
        raise ValidationError(
            "An item must be an object: a conversation {messages, user_id, …} or a memory {memory, user_id, …}."
        )
    text = memory_text(entry)
    has_messages = entry.get("messages") is not None
    if has_messages == (text is not None):
        raise ValidationError(
            "An item is a conversation (messages) or a memory (memory or text): give one of them."
            if not has_messages
            else "An item is a conversation (messages) or a memory (memory or text), not both."
        )
    scope = Scope(**(_scope_ids(entry, "") or defaults))
    if not scope.has_owner():
        raise ValidationError(
            "At least one of user_id, agent_id, run_id or app_id is required: on the item, or for every item that "
            "names none, on the import."
        )
    common: dict[str, Any] = {
        "scope": scope,
        "metadata": _metadata(entry.get("metadata")),
        "expiration_date": _expiration(entry.get("expiration_date")),
        "timestamp": _moment(entry),
    }
    if text is not None:
        categories = _categories(entry.get("categories"))
        command = AddCommand([Message("user", text)], infer=False, categories=categories, **common)
    else:
        command = AddCommand(messages_of(entry["messages"]), infer=_infer(entry.get("infer"), infer), **common)
    command.check_size()
    return command


def memory_text(entry: Mapping[str, Any]) -> str | None:
    """A memory item's text (None: the item is no memory)."""
    data = entry.get("data")
    found = [entry.get(key) for key in ("memory", "text", "content") if entry.get(key) is not None]
    if isinstance(data, Mapping) and data.get("memory") is not None:
        found.append(data.get("memory"))
    if not found:
        return None
    if not isinstance(found[0], str):
        raise ValidationError("A memory's text (memory or text) must be a string.")
    if not found[0].strip():
        raise ValidationError("A memory's text is empty.")
    return found[0]


def _scope_ids(raw: Mapping[str, Any], where: str) -> dict[str, str]:
    """The user, agent, app and run ids `raw` names, each checked (a ValidationError names the field)."""
    out: dict[str, str] = {}
    for name in ENTITY_KEYS:
        value = raw.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ValidationError(f"{where}{name} must be a string.")
        out[name] = checked_entity_id(value, f"{where}{name}")
    return out


def _metadata(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValidationError("metadata must be an object.")
    problem = json_problem(raw, "metadata")
    if problem is not None:
        raise ValidationError(f"{problem[0].upper()}{problem[1:]}.")
    return dict(raw)


def _categories(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(c, str) and 0 < len(c) <= MAX_CATEGORY_NAME for c in raw):
        raise ValidationError(f"categories must be a list of names (1 to {MAX_CATEGORY_NAME} characters each).")
    if len(raw) > MAX_ITEM_CATEGORIES:
        raise ValidationError(f"A memory has at most {MAX_ITEM_CATEGORIES} categories; this one {len(raw):,}.")
    return tuple(dict.fromkeys(raw))


def _expiration(raw: Any) -> date | None:
    if raw is None:
        return None
    try:
        return date.fromisoformat(raw) if isinstance(raw, str) and len(raw) == 10 else _bad_expiration()
    except ValueError:
        return _bad_expiration()


def _bad_expiration() -> date:
    raise ValidationError("expiration_date must be a valid date in YYYY-MM-DD format.")


def _moment(entry: Mapping[str, Any]) -> datetime | None:
    """When it happened: `timestamp` (an add's), else `created_at` (an exported memory's)."""
    name = "timestamp" if entry.get("timestamp") is not None else "created_at"
    raw = entry.get(name)
    return None if raw is None else parse_datetime(raw, name)


def _infer(raw: Any, default: bool) -> bool:
    if raw is None:
        return default
    if not isinstance(raw, bool):
        raise ValidationError("infer must be true or false.")
    return raw


def import_payload(fmt: str, total: int, items: Sequence[ImportItem]) -> dict[str, Any]:
    """The event's payload: what was read, how many items were sent, and the adds of those to run."""
    return {
        "format": fmt,
        "total": total,
        "items": [{"index": item.index, "add": _compact(item.command.to_json())} for item in items],
    }


def items_of(payload: Mapping[str, Any]) -> list[ImportItem]:
    """The adds an import's payload holds (ValidationError for a payload this version cannot read)."""
    raw = payload.get("items")
    if not isinstance(raw, list):
        raise ValidationError("Not an import: its payload holds no items.")
    out: list[ImportItem] = []
    for item in raw:
        index = item.get("index") if isinstance(item, Mapping) else None
        if not isinstance(index, int) or not isinstance(item.get("add"), Mapping):
            raise ValidationError("Not an import: an item of its payload has no index or add.")
        out.append(ImportItem(index, AddCommand.from_json(item["add"])))
    return out


def _compact(add: dict[str, Any]) -> dict[str, Any]:
    """An add's JSON without the keys left empty (AddCommand.from_json reads them as their defaults): an import
    holds up to a thousand of them. `categories` stays even when empty: a memory imported without categories keeps
    none (absent, the add would file it)."""
    out = {k: v for k, v in add.items() if (v is not None and v not in ([], {})) or k == "categories"}
    out["messages"] = [{k: v for k, v in m.items() if v is not None} for m in add["messages"]]
    return out
