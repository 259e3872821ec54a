"""The filter grammar: parsed once into a small tree, validated, and evaluated against filter documents.

Grammar (a JSON object):
- sibling keys are ANDed; `AND` / `OR` take a non-empty list of filters; `NOT` takes a filter or a list
  (negating their OR);
- a field maps to a bare value (equality), a list (in), `"*"` (has a non-null value), or an object of
  operators, all of which must hold: eq, ne, gt, gte, lt, lte, in, nin, contains, icontains;
- metadata keys are written `{"metadata": {"key": ...}}` or `"metadata.key"`.
Unknown fields and operators are rejected with a ValidationError that names them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from mnemo.domain.entity_ids import checked_entity_id
from mnemo.domain.memory import is_clean_text
from mnemo.errors import ValidationError

OPERATORS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains")
LOGICAL = ("AND", "OR", "NOT")
WILDCARD = "*"

_STRING_OPS = frozenset({"eq", "ne", "in", "nin", "contains", "icontains"})
_DATE_OPS = frozenset({"eq", "ne", "gt", "gte", "lt", "lte", "in", "nin"})
_TEXT_OPS = frozenset({"eq", "ne", "contains", "icontains"})
_LIST_OPS = frozenset({"eq", "ne", "in", "nin", "contains", "icontains"})
_ALL_OPS = frozenset(OPERATORS)

# field name -> (kind, allowed operators)
FIELDS: dict[str, tuple[str, frozenset[str]]] = {
    "user_id": ("string", _STRING_OPS),
    "agent_id": ("string", _STRING_OPS),
    "run_id": ("string", _STRING_OPS),
    "app_id": ("string", _STRING_OPS),
    "actor_id": ("string", _STRING_OPS),
    "role": ("string", _STRING_OPS),
    "id": ("string", _STRING_OPS),
    "memory": ("text", _TEXT_OPS),
    "created_at": ("datetime", _DATE_OPS),
    "updated_at": ("datetime", _DATE_OPS),
    "expiration_date": ("date", _DATE_OPS),
    "categories": ("list", _LIST_OPS),
    "metadata": ("any", _ALL_OPS),
}
ALIASES = {"text": "memory", "memory_id": "id", "memory_ids": "id"}
ENTITY_FIELDS = ("user_id", "agent_id", "run_id")


@dataclass(frozen=True, slots=True)
class Condition:
    field: str
    op: str  # one of OPERATORS, or "exists" for the wildcard
    value: Any
    key: str | None = None  # the metadata key when field == "metadata"


@dataclass(frozen=True, slots=True)
class And:
    children: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Or:
    children: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Not:
    child: Expr


Expr = Condition | And | Or | Not


# Bounds of one filter, whatever it arrives in (a body, a query string): nested objects and lists, values in all,
# items of one list. Checked before anything walks the filter, so that no filter can exhaust the stack or the CPU.
MAX_FILTER_DEPTH = 16
MAX_FILTER_VALUES = 2_000
MAX_FILTER_LIST = 1_000


def check_shape(raw: Any, where: str = "filters") -> None:
    """A 400 when the filter object nests deeper, holds more values, or has a longer list than the bounds (an
    iterative walk: any depth is measured without recursion)."""
    pending: list[tuple[Any, int]] = [(raw, 1)]
    values = 0
    while pending:
        value, depth = pending.pop()
        values += 1
        if values > MAX_FILTER_VALUES:
            raise ValidationError(f"{where} holds more than {MAX_FILTER_VALUES:,} values.")
        if isinstance(value, Mapping | list) and depth > MAX_FILTER_DEPTH:
            raise ValidationError(f"{where} nests objects and lists more than {MAX_FILTER_DEPTH} deep.")
        if isinstance(value, list) and len(value) > MAX_FILTER_LIST:
            raise ValidationError(f"A list in {where} has {len(value):,} items; at most {MAX_FILTER_LIST:,}.")
        texts = [value] if isinstance(value, str) else list(value) if isinstance(value, Mapping) else []
        if any(isinstance(text, str) and not is_clean_text(text) for text in texts):
            raise ValidationError(f"{where} holds a control character or an unpaired UTF-16 surrogate.")
        children = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else ()
        pending.extend((child, depth + 1) for child in children)


def parse(raw: Mapping[str, Any] | None) -> Expr:
    """Parse and validate a filter object. An empty filter matches everything."""
    if raw is None:
        return And(())
    if not isinstance(raw, Mapping):
        raise ValidationError(f"filters must be a JSON object, not {type(raw).__name__}.")
    check_shape(raw)
    return _parse_object(raw, "filters")


def _parse_object(raw: Mapping[str, Any], where: str) -> Expr:
    parts: list[Expr] = []
    for key, value in raw.items():
        if key in LOGICAL:
            parts.append(_parse_logical(key, value, f"{where}.{key}"))
        elif key == "metadata":
            if not isinstance(value, Mapping):
                raise ValidationError(f"{where}.metadata must be an object of metadata keys.")
            parts.extend(_parse_field("metadata", v, f"{where}.metadata.{k}", key=k) for k, v in value.items())
        elif key.startswith("metadata."):
            parts.append(_parse_field("metadata", value, f"{where}.{key}", key=key.removeprefix("metadata.")))
        else:
            field = ALIASES.get(key, key)
            if field not in FIELDS:
                raise ValidationError(
                    f"Unknown filter field '{key}' in {where}. Filterable fields: "
                    f"{', '.join(sorted(set(FIELDS) | set(ALIASES)))}; metadata keys go under "
                    f'\'metadata\' (for example {{"metadata": {{"{key}": ...}}}}).'
                )
            parts.append(_parse_field(field, value, f"{where}.{key}"))
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _parse_logical(op: str, value: Any, where: str) -> Expr:
    items = [value] if op == "NOT" and isinstance(value, Mapping) else value
    if not isinstance(items, list) or not items:
        raise ValidationError(f"{where} must be a non-empty list of filter objects.")
    if not all(isinstance(item, Mapping) for item in items):
        raise ValidationError(f"Every item of {where} must be a filter object.")
    children = tuple(_parse_object(item, f"{where}[{i}]") for i, item in enumerate(items))
    if op == "AND":
        return And(children)
    if op == "OR":
        return Or(children)
    return Not(children[0] if len(children) == 1 else Or(children))


def _parse_field(field: str, value: Any, where: str, key: str | None = None) -> Expr:
    kind, allowed = FIELDS[field]
    if field == "metadata" and not key:
        raise ValidationError(f"{where}: a metadata filter needs a key.")
    if isinstance(value, Mapping):
        if not value:
            raise ValidationError(f"{where} has an empty operator object.")
        conditions: list[Expr] = []
        for op, operand in value.items():
            if op not in OPERATORS:
                raise ValidationError(
                    f"Unsupported filter operator '{op}' in {where}. Operators: {', '.join(OPERATORS)}."
                )
            if op not in allowed:
                raise ValidationError(
                    f"Operator '{op}' is not supported on '{field}' ({where}). Allowed: {', '.join(sorted(allowed))}."
                )
            conditions.append(_checked_ids(Condition(field, op, _coerce_operand(kind, op, operand, where), key), where))
        return conditions[0] if len(conditions) == 1 else And(tuple(conditions))
    if value == WILDCARD:
        return Condition(field, "exists", None, key)
    if isinstance(value, list):
        return _checked_ids(Condition(field, "in", _coerce_operand(kind, "in", value, where), key), where)
    return _checked_ids(Condition(field, "eq", _coerce_operand(kind, "eq", value, where), key), where)


def _checked_ids(condition: Condition, where: str) -> Condition:
    """An entity id longer than any stored one is a 400 (on DynamoDB it would not even fit in a key)."""
    if condition.field in (*ENTITY_FIELDS, "app_id"):
        values = condition.value if isinstance(condition.value, tuple) else (condition.value,)
        for value in values:
            if isinstance(value, str) and value:  # "" matches what names no such id: no id to check
                checked_entity_id(value, where)
    return condition


def _coerce_operand(kind: str, op: str, operand: Any, where: str) -> Any:
    if op in ("in", "nin"):
        if not isinstance(operand, list):
            raise ValidationError(f"Operator '{op}' in {where} needs a list.")
        return tuple(_coerce_scalar(kind, op, item, where) for item in operand)
    return _coerce_scalar(kind, op, operand, where)


def _coerce_scalar(kind: str, op: str, operand: Any, where: str) -> Any:
    if isinstance(operand, Mapping | list):
        raise ValidationError(f"Operator '{op}' in {where} needs a single value.")
    if op in ("contains", "icontains"):
        if not isinstance(operand, str):
            raise ValidationError(f"Operator '{op}' in {where} needs a string.")
        return operand
    if kind == "datetime":
        return parse_datetime(operand, where)
    if kind == "date":
        return parse_datetime(operand, where).date()
    if kind in ("string", "text") and (isinstance(operand, bool) or not isinstance(operand, str | int)):
        raise ValidationError(f"{where} needs a string value.")
    if kind in ("string", "text"):
        return str(operand)
    return operand


def parse_datetime(value: Any, where: str = "value") -> datetime:
    """ISO 8601 date or date-time (naive means UTC), or Unix seconds."""
    if isinstance(value, bool):
        raise ValidationError(f"{where} must be a date, an ISO 8601 date-time or Unix seconds.")
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value, tz=UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValidationError(f"{where}: {value!r} is out of range for Unix seconds.") from exc
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise ValidationError(f"{where} must be a date, an ISO 8601 date-time or Unix seconds, not {value!r}.")


# ---- evaluation ---------------------------------------------------------------------------------------


def matches(expr: Expr, doc: Mapping[str, Any]) -> bool:
    if isinstance(expr, Condition):
        return _check(expr, doc)
    if isinstance(expr, And):
        return all(matches(child, doc) for child in expr.children)
    if isinstance(expr, Or):
        return any(matches(child, doc) for child in expr.children)
    return not matches(expr.child, doc)


Predicate = Callable[[Mapping[str, Any]], bool]
_SCALAR_STRING_FIELDS = frozenset({"user_id", "agent_id", "run_id", "app_id", "actor_id", "role", "id", "state"})


def predicate(expr: Expr) -> Predicate:
    """`expr` compiled into one function of a document: the same answers as `matches`, without re-walking the
    tree per document (search evaluates it on every candidate)."""
    if isinstance(expr, Condition):
        return _compile_condition(expr)
    if isinstance(expr, Not):
        inner = predicate(expr.child)
        return lambda doc: not inner(doc)
    children = tuple(predicate(child) for child in expr.children)
    return _all_of(children) if isinstance(expr, And) else _any_of(children)


def _all_of(children: tuple[Predicate, ...]) -> Predicate:
    if not children:
        return lambda _doc: True
    if len(children) == 1:
        return children[0]

    def every(doc: Mapping[str, Any]) -> bool:
        for check in children:  # noqa: SIM110 - no generator per document on the search hot path
            if not check(doc):
                return False
        return True

    return every


def _any_of(children: tuple[Predicate, ...]) -> Predicate:
    def some(doc: Mapping[str, Any]) -> bool:
        for check in children:  # noqa: SIM110 - no generator per document on the search hot path
            if check(doc):
                return True
        return False

    return some


def _compile_condition(cond: Condition) -> Predicate:
    if cond.field in _SCALAR_STRING_FIELDS and isinstance(cond.value, str):
        name, value = cond.field, cond.value
        if cond.op == "eq":
            return lambda doc: doc.get(name) == value
        if cond.op == "ne":
            return lambda doc: doc.get(name) != value
    if cond.field in _SCALAR_STRING_FIELDS and cond.op in ("in", "nin") and all(isinstance(v, str) for v in cond.value):
        # A search of current and outdated memories filters `state in [...]` on every candidate: one set lookup.
        name, values = cond.field, frozenset(cond.value)
        if cond.op == "in":
            return lambda doc: doc.get(name) in values
        return lambda doc: doc.get(name) not in values
    if cond.op == "exists" and cond.field != "metadata":
        # Every search's visibility test asks whether expiration_date exists: `_check`'s answer, without its branches.
        field = cond.field
        return lambda doc: _present(doc.get(field))
    return lambda doc: _check(cond, doc)


def _present(actual: Any) -> bool:
    return actual is not None and actual not in ([], "")


def _check(cond: Condition, doc: Mapping[str, Any]) -> bool:
    if cond.field == "metadata":
        metadata = doc.get("metadata") or {}
        actual = metadata.get(cond.key) if isinstance(metadata, Mapping) else None
    else:
        actual = doc.get(cond.field)
    if cond.field == "expiration_date" and isinstance(actual, datetime):
        actual = actual.date()
    if cond.op == "exists":
        return _present(actual)
    if isinstance(actual, list):
        return _check_list(cond, actual)
    return _compare(cond.op, actual, cond.value)


def _contains_text(actual: list[Any], value: str) -> bool:
    needle = value.lower()
    return any(isinstance(a, str) and needle in a.lower() for a in actual)


# Lists (categories, list-valued metadata) match by membership; an operator not here compares each element.
_BY_MEMBERSHIP: dict[str, Callable[[list[Any], Any], bool]] = {
    "eq": lambda actual, value: value in actual,
    "ne": lambda actual, value: value not in actual,
    "in": lambda actual, value: any(v in actual for v in value),
    "nin": lambda actual, value: not any(v in actual for v in value),
    "contains": _contains_text,
    "icontains": _contains_text,
}


def _check_list(cond: Condition, actual: list[Any]) -> bool:
    by_membership = _BY_MEMBERSHIP.get(cond.op)
    if by_membership is not None:
        return by_membership(actual, cond.value)
    return any(_compare(cond.op, a, cond.value) for a in actual)


_SCALAR_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda actual, value: actual is not None and _eq(actual, value),
    "ne": lambda actual, value: actual is None or not _eq(actual, value),
    "in": lambda actual, value: actual is not None and any(_eq(actual, v) for v in value),
    "nin": lambda actual, value: actual is None or not any(_eq(actual, v) for v in value),
    "contains": lambda actual, value: isinstance(actual, str) and value in actual,
    "icontains": lambda actual, value: isinstance(actual, str) and value.lower() in actual.lower(),
}
_ORDER_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "gt": operator.gt,
    "gte": operator.ge,
    "lt": operator.lt,
    "lte": operator.le,
}


def _compare(op: str, actual: Any, value: Any) -> bool:
    scalar = _SCALAR_OPS.get(op)
    if scalar is not None:
        return scalar(actual, value)
    left, right = _comparable(actual, value)
    return left is not None and right is not None and bool(_ORDER_OPS[op](left, right))


def _eq(actual: Any, value: Any) -> bool:
    left, right = _comparable(actual, value)
    if left is None or right is None:
        return str(actual) == str(value)
    return bool(left == right)


_NOT_COMPARABLE: tuple[Any, Any] = (None, None)


def _comparable(actual: Any, value: Any) -> tuple[Any, Any]:
    """Bring both sides to one comparable type, or (None, None) when they have none."""
    if isinstance(actual, bool) or isinstance(value, bool):
        return (actual, value) if isinstance(actual, bool) and isinstance(value, bool) else _NOT_COMPARABLE
    if isinstance(actual, date) and isinstance(value, date):
        if isinstance(actual, datetime) and isinstance(value, datetime):
            return actual, value
        return _day(actual), _day(value)  # a date and a datetime compare by day
    if isinstance(actual, str | int | float) and isinstance(value, str | int | float):
        return _scalars(actual, value)
    return _NOT_COMPARABLE


def _day(moment: date) -> date:
    return moment.date() if isinstance(moment, datetime) else moment


def _scalars(actual: str | float, value: str | float) -> tuple[Any, Any]:
    """Two numbers or two strings as they are; a number and a string as numbers, when the string is one."""
    if isinstance(actual, str) == isinstance(value, str):
        return actual, value
    try:
        return float(actual), float(value)
    except ValueError:
        return _NOT_COMPARABLE


# ---- analysis -----------------------------------------------------------------------------------------


def pinned_values(expr: Expr, field: str) -> set[str] | None:
    """The values `field` must take for `expr` to hold (top-level eq / in under AND), or None if unpinned."""
    if isinstance(expr, Condition):
        return _pinned_by(expr, field)
    if isinstance(expr, And):
        pinned: set[str] | None = None
        for child in expr.children:
            values = pinned_values(child, field)
            if values is not None:
                pinned = values if pinned is None else pinned & values
        return pinned
    if isinstance(expr, Or) and expr.children:
        every = [pinned_values(child, field) for child in expr.children]
        return None if any(values is None for values in every) else set().union(*every)  # type: ignore[arg-type]
    return None


def _pinned_by(cond: Condition, field: str) -> set[str] | None:
    if cond.field != field or cond.op not in ("eq", "in"):
        return None
    return {cond.value} if cond.op == "eq" else set(cond.value)


def fields_of(expr: Expr) -> set[str]:
    """Every field the expression reads."""
    if isinstance(expr, Condition):
        return {expr.field}
    if isinstance(expr, Not):
        return fields_of(expr.child)
    return set().union(*(fields_of(child) for child in expr.children))


def mentions_entity(expr: Expr) -> bool:
    """Whether the filter names at least one of user_id, agent_id, run_id positively."""
    if isinstance(expr, Condition):
        return expr.field in ENTITY_FIELDS and expr.op in ("eq", "in", "exists", "contains", "icontains")
    if isinstance(expr, And | Or):
        return any(mentions_entity(child) for child in expr.children)
    return False


def conjoin(*exprs: Expr) -> Expr:
    children: list[Expr] = []
    for expr in exprs:
        if isinstance(expr, And):
            children.extend(expr.children)
        else:
            children.append(expr)
    return children[0] if len(children) == 1 else And(tuple(children))
