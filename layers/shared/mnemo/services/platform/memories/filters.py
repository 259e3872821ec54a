"""The platform filter grammar, checked and translated into mnemo's own grammar.

Allowed keys: AND, OR, NOT (an object or a list), the entity ids (eq, ne, in, "*"), created_at, updated_at,
timestamp (= created_at) and expiration_date (gt, gte, lt, lte, ne, in; a bare value for equality),
text (the memory text), categories (in, contains), metadata (top-level keys: equality, ne, contains),
keywords and keywords_search (contains, icontains on the text), memory_ids (a list). Anything else is a 400.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mnemo.domain import filters as f
from mnemo.errors import ValidationError

ENTITY_KEYS = ("user_id", "agent_id", "app_id", "run_id")
ALLOWED_KEYS = (
    "AND",
    "OR",
    "NOT",
    *ENTITY_KEYS,
    "created_at",
    "updated_at",
    "timestamp",
    "expiration_date",
    "text",
    "categories",
    "metadata",
    "keywords_search",
    "memory_ids",
    "keywords",
)
_ENTITY_OPS = frozenset({"eq", "ne", "in"})
_DATE_OPS = frozenset({"gt", "gte", "lt", "lte", "ne", "in"})
_CATEGORY_OPS = frozenset({"in", "contains"})
_METADATA_OPS = frozenset({"eq", "ne", "contains"})
_KEYWORD_OPS = frozenset({"contains", "icontains"})
_TEXT_OPS = frozenset({"eq", "ne", "contains", "icontains"})


def parse(raw: Any) -> f.Expr:
    """Check a platform filter object and parse it. None or {} matches everything."""
    if raw is None:
        return f.And(())
    if not isinstance(raw, Mapping):
        raise ValidationError("filters must be a JSON object.")
    f.check_shape(raw)  # before the translation walks it
    return f.parse(_translate(raw, "filters"))


def _translate(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    parts: list[dict[str, Any]] = []
    for key, value in raw.items():
        if key not in ALLOWED_KEYS:
            raise ValidationError(
                f"Top-level key must be a logical operator or an allowed field: {list(ALLOWED_KEYS)} "
                f"(got '{key}' in {where})."
            )
        here = f"{where}.{key}"
        if key in ("AND", "OR", "NOT"):
            out[key] = _logical(key, value, here)
        elif key in ENTITY_KEYS:
            out[key] = _checked(value, _ENTITY_OPS, here, wildcard=True)
        else:
            parts.append(_FIELDS[key](key, value, here))
    if parts:
        out["AND"] = [*out.get("AND", []), *parts]
    return out


def _logical(key: str, value: Any, here: str) -> list[dict[str, Any]]:
    items = [value] if key == "NOT" and isinstance(value, Mapping) else value
    if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
        raise ValidationError(f"{here} must be a list of filter objects.")
    return [_translate(item, f"{here}[{i}]") for i, item in enumerate(items)]


def _date(key: str, value: Any, here: str) -> dict[str, Any]:
    if isinstance(value, Mapping) and "eq" in value:
        raise ValidationError(f"{here}: 'eq' is not supported on dates; give the bare value instead.")
    return {"created_at" if key == "timestamp" else key: _checked(value, _DATE_OPS, here)}


def _categories(_key: str, value: Any, here: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValidationError(f"{here} takes an operator object: in or contains.")
    checked = _checked(value, _CATEGORY_OPS, here)
    if "contains" in checked:
        checked["icontains"] = checked.pop("contains")
    return {"categories": checked}


def _metadata(_key: str, value: Any, here: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValidationError(f"{here} must be an object of metadata keys.")
    return {"metadata": {k: _checked(v, _METADATA_OPS, f"{here}.{k}") for k, v in value.items()}}


def _keywords(_key: str, value: Any, here: str) -> dict[str, Any]:
    operators = {"icontains": value} if isinstance(value, str) else value
    return {"memory": _checked(operators, _KEYWORD_OPS, here)}


def _text(_key: str, value: Any, here: str) -> dict[str, Any]:
    return {"memory": _checked(value, _TEXT_OPS, here)}


def _memory_ids(_key: str, value: Any, here: str) -> dict[str, Any]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(f"{here} must be a list of memory ids.")
    return {"id": {"in": value}}


# Each field of the platform grammar but the logical operators and the entity ids: its translation into one part
# of an AND of mnemo's grammar.
_FIELDS: dict[str, Callable[[str, Any, str], dict[str, Any]]] = {
    "created_at": _date,
    "updated_at": _date,
    "timestamp": _date,
    "expiration_date": _date,
    "categories": _categories,
    "metadata": _metadata,
    "keywords": _keywords,
    "keywords_search": _keywords,
    "text": _text,
    "memory_ids": _memory_ids,
}


def _checked(value: Any, allowed: frozenset[str], where: str, *, wildcard: bool = False) -> Any:
    if isinstance(value, Mapping):
        for op in value:
            if op not in allowed and not (wildcard and op == "*"):
                raise ValidationError(f"Operator '{op}' is not supported in {where}. Allowed: {sorted(allowed)}.")
        return dict(value)
    if value == "*" and not wildcard:
        raise ValidationError(f"'*' is not supported in {where}.")
    return value


def entity_ids(raw: Any) -> dict[str, str]:
    """The entity ids a flat filter object (or its top-level AND) pins by equality: the scope of an add."""
    found: dict[str, str] = {}
    if not isinstance(raw, Mapping):
        return found
    for key in ENTITY_KEYS:
        value = raw.get(key)
        if isinstance(value, str) and value != "*":
            found[key] = value
        elif isinstance(value, Mapping) and isinstance(value.get("eq"), str):
            found[key] = value["eq"]
    for item in raw.get("AND", []) if isinstance(raw.get("AND"), list) else []:
        for key, value in entity_ids(item).items():
            found.setdefault(key, value)
    return found
