"""The filter grammar (mnemo.domain.filters) translated to OpenSearch bool queries.

A condition is translated only when the query matches exactly the documents `filters.predicate` accepts:

- user_id, agent_id, run_id, app_id, actor_id, role, id, state (keyword fields): eq, in as term / terms;
  ne, nin as must_not; `*` as exists and not the empty string; contains as a wildcard `*needle*`;
  icontains (ASCII needle) as a case-insensitive wildcard.
- categories (a keyword list, any element matches): eq, ne, in, nin, `*` (exists); contains and icontains
  (ASCII needle) both as a case-insensitive wildcard, since the grammar ignores case on list elements.
- created_at, updated_at (indexed as microseconds since the epoch, a long): eq, ne, in, nin as term / terms,
  gt, gte, lt, lte as range, `*` as exists.
- expiration_date (a date): eq, ne, in, nin as one-day ranges, gt, gte, lt, lte as range, `*` as exists.
- metadata.<key>: eq, ne, in, nin with plain text values, as term / terms on `metadata_terms` (each text
  value indexed as the JSON pair [key, value]).
- AND, OR, NOT: bool filter, should (minimum_should_match 1), must_not.

Not translated, so checked in Python after the search (post-filtered with `filters.predicate`): `memory`
(the text), icontains with a non-ASCII needle, metadata values that are numbers, booleans or text that reads as
a number or a boolean (the grammar compares those across types: "3" equals 3), and metadata ranges, contains
and `*`. Such a condition is relaxed to "match everything" where it appears positively (and to "match nothing"
under a NOT), so the query returns a superset of the matches and the post-filter removes the rest; the search
then asks for more candidates (see OpenSearchMemoryIndex.search).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from mnemo.domain import filters as f
from mnemo.domain.memory import FACETS_FIELD

MATCH_ALL: dict[str, Any] = {"match_all": {}}
MATCH_NONE: dict[str, Any] = {"match_none": {}}
KEYWORD_FIELDS = frozenset({"user_id", "agent_id", "run_id", "app_id", "actor_id", "role", "id", "state"})
MICROSECOND_FIELDS = {"created_at": "created_us", "updated_at": "updated_us"}
_RANGE_OPS = ("gt", "gte", "lt", "lte")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Translation:
    query: dict[str, Any] | None  # None: no restriction
    exact: bool  # False: the query over-approximates; post-filter and over-fetch
    matches_nothing: bool = False


def translate(expr: f.Expr) -> Translation:
    query, exact = _translate(expr, positive=True)
    if query == MATCH_NONE:
        return Translation(None, exact, matches_nothing=True)
    return Translation(None if query == MATCH_ALL else query, exact)


def micros(moment: datetime) -> int:
    """Microseconds since the Unix epoch, exactly (integer arithmetic, any year)."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return (aware - _EPOCH) // timedelta(microseconds=1)


def metadata_term(key: str, value: str) -> str:
    """The indexed form of one metadata text value: unambiguous whatever the key and value contain."""
    return json.dumps([key, value], separators=(",", ":"), ensure_ascii=False)


def metadata_terms(metadata: dict[str, Any]) -> list[str]:
    """The terms a memory's metadata is found by: each text value, and each text element of a list value."""
    out: list[str] = []
    for key, value in metadata.items():
        if isinstance(value, str):
            out.append(metadata_term(key, value))
        elif isinstance(value, list):
            out.extend(metadata_term(key, item) for item in value if isinstance(item, str))
    return out


def _translate(expr: f.Expr, positive: bool) -> tuple[dict[str, Any], bool]:
    if isinstance(expr, f.Not):
        query, exact = _translate(expr.child, not positive)
        return negate(query), exact
    if isinstance(expr, f.And | f.Or):
        parts = [_translate(child, positive) for child in expr.children]
        combine = both if isinstance(expr, f.And) else either
        return combine([q for q, _ in parts]), all(exact for _, exact in parts)
    condition = _condition(expr)
    if condition is None:
        return (MATCH_ALL if positive else MATCH_NONE), False
    return condition, True


def both(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if any(p == MATCH_NONE for p in parts):
        return MATCH_NONE
    kept = [p for p in parts if p != MATCH_ALL]
    if not kept:
        return MATCH_ALL
    return kept[0] if len(kept) == 1 else {"bool": {"filter": kept}}


def either(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if any(p == MATCH_ALL for p in parts):
        return MATCH_ALL
    kept = [p for p in parts if p != MATCH_NONE]
    if not kept:
        return MATCH_NONE
    return kept[0] if len(kept) == 1 else {"bool": {"should": kept, "minimum_should_match": 1}}


def negate(query: dict[str, Any]) -> dict[str, Any]:
    if query == MATCH_ALL:
        return MATCH_NONE
    if query == MATCH_NONE:
        return MATCH_ALL
    inner = query.get("bool", {})
    if set(query) == {"bool"} and set(inner) == {"must_not"} and len(inner["must_not"]) == 1:
        return dict(inner["must_not"][0])
    return {"bool": {"must_not": [query]}}


def _condition(cond: f.Condition) -> dict[str, Any] | None:
    if cond.field in KEYWORD_FIELDS:
        return _keyword(cond.field, cond.op, cond.value, many=False)
    if cond.field in ("categories", FACETS_FIELD):
        return _keyword(cond.field, cond.op, cond.value, many=True)
    if cond.field in MICROSECOND_FIELDS:
        return _instant(MICROSECOND_FIELDS[cond.field], cond.op, cond.value)
    if cond.field == "expiration_date":
        return _day(cond.op, cond.value)
    if cond.field == "metadata" and cond.key is not None:
        return _metadata(cond.key, cond.op, cond.value)
    return None


def _signed(op: str, query: dict[str, Any] | None) -> dict[str, Any] | None:
    """`query` for a positive operator (eq, in), its negation for a negative one (ne, nin)."""
    if query is None:
        return None
    return negate(query) if op in ("ne", "nin") else query


def _terms(field: str, values: Any, kind: type, as_term: Callable[[Any], Any]) -> dict[str, Any] | None:
    """The terms query of `in`, when every value is of `kind` (None otherwise: the filter is applied after)."""
    if not all(isinstance(v, kind) for v in values):
        return None
    return {"terms": {field: [as_term(v) for v in values]}} if values else MATCH_NONE


def _keyword(field: str, op: str, value: Any, *, many: bool) -> dict[str, Any] | None:
    if op == "exists":
        present = {"exists": {"field": field}}
        # The grammar's `*` rejects "" (but a list holding "" is a non-empty list).
        return present if many else both([present, negate({"term": {field: ""}})])
    if op in ("in", "nin"):
        return _signed(op, _terms(field, value, str, str))
    if not isinstance(value, str):
        return None
    if op in ("eq", "ne"):
        return _signed(op, {"term": {field: value}})
    return _text_match(field, op, value, many=many)


def _text_match(field: str, op: str, value: str, *, many: bool) -> dict[str, Any] | None:
    if op == "contains" and not many:
        return {"wildcard": {field: {"value": f"*{_wildcard_escape(value)}*"}}}
    # icontains, and contains on a list (the grammar matches list elements ignoring case either way).
    if op in ("contains", "icontains") and value.isascii():
        return {"wildcard": {field: {"value": f"*{_wildcard_escape(value)}*", "case_insensitive": True}}}
    return None


def _wildcard_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("?", "\\?")


def _instant(field: str, op: str, value: Any) -> dict[str, Any] | None:
    if op == "exists":
        return {"exists": {"field": field}}
    if op in ("in", "nin"):
        return _signed(op, _terms(field, value, datetime, micros))
    if not isinstance(value, datetime):
        return None
    if op in _RANGE_OPS:
        return {"range": {field: {op: micros(value)}}}
    return _signed(op, {"term": {field: micros(value)}}) if op in ("eq", "ne") else None


def _day(op: str, value: Any) -> dict[str, Any] | None:
    field = "expiration_date"
    if op == "exists":
        return {"exists": {"field": field}}
    if op in ("in", "nin"):
        days = either([_on_day(v) for v in value]) if all(isinstance(v, date) for v in value) else None
        return _signed(op, days)
    if not isinstance(value, date):
        return None
    if op in _RANGE_OPS:
        return {"range": {field: {op: _day_text(value)}}}
    return _signed(op, _on_day(value)) if op in ("eq", "ne") else None


def _day_text(value: date) -> str:
    return (value.date() if isinstance(value, datetime) else value).isoformat()


def _on_day(value: date) -> dict[str, Any]:
    day = _day_text(value)
    return {"range": {"expiration_date": {"gte": day, "lte": day}}}


def _metadata(key: str, op: str, value: Any) -> dict[str, Any] | None:
    values = value if op in ("in", "nin") else (value,)
    if op not in ("eq", "ne", "in", "nin") or not all(_plain_text(v) for v in values):
        return None
    terms = [metadata_term(key, v) for v in values]
    query: dict[str, Any]
    if op in ("eq", "ne"):
        query = {"term": {"metadata_terms": terms[0]}}
    else:
        query = {"terms": {"metadata_terms": terms}} if terms else MATCH_NONE
    return query if op in ("eq", "in") else negate(query)


def _plain_text(value: Any) -> bool:
    """Text that the grammar compares only with equal text: not a number, a boolean's or None's name, or the
    look of a list or object (against those, the grammar compares across types)."""
    if not isinstance(value, str) or value in ("True", "False", "None") or value.startswith(("{", "[")):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False
