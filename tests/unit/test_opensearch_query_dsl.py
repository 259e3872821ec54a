"""The filter grammar translated to OpenSearch queries: the exact query for each operator, and, on a set of
varied memories, agreement with `filters.predicate` (judged by a small model of how OpenSearch evaluates the
query clauses used: term, terms, range, exists, wildcard, bool)."""

from __future__ import annotations

import calendar
import operator
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.opensearch.documents import document
from mnemo.adapters.opensearch.query_dsl import MATCH_NONE, metadata_term, micros, translate
from mnemo.domain import filters as f
from mnemo.domain.filters import parse
from mnemo.domain.memory import LifecycleState, MemoryRecord, Scope
from mnemo.language.en import english

T0 = datetime(2024, 3, 1, 12, 0, 0, 250000, tzinfo=UTC)


def query(raw: dict[str, Any]) -> dict[str, Any] | None:
    translation = translate(parse(raw))
    assert translation.exact, raw
    return translation.query


# ---- the query for each operator ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"user_id": "alice"}, {"term": {"user_id": "alice"}}),
        ({"agent_id": {"ne": "bot"}}, {"bool": {"must_not": [{"term": {"agent_id": "bot"}}]}}),
        ({"run_id": ["r1", "r2"]}, {"terms": {"run_id": ["r1", "r2"]}}),
        ({"app_id": {"in": ["a"]}}, {"terms": {"app_id": ["a"]}}),
        ({"actor_id": {"nin": ["x", "y"]}}, {"bool": {"must_not": [{"terms": {"actor_id": ["x", "y"]}}]}}),
        (
            {"role": "*"},
            {"bool": {"filter": [{"exists": {"field": "role"}}, {"bool": {"must_not": [{"term": {"role": ""}}]}}]}},
        ),
        ({"user_id": {"contains": "li*c?\\"}}, {"wildcard": {"user_id": {"value": "*li\\*c\\?\\\\*"}}}),
        ({"user_id": {"icontains": "LIC"}}, {"wildcard": {"user_id": {"value": "*LIC*", "case_insensitive": True}}}),
        ({"memory_ids": ["m1", "m2"]}, {"terms": {"id": ["m1", "m2"]}}),
        ({"categories": "travel"}, {"term": {"categories": "travel"}}),
        ({"categories": {"ne": "work"}}, {"bool": {"must_not": [{"term": {"categories": "work"}}]}}),
        ({"categories": "*"}, {"exists": {"field": "categories"}}),
        (
            {"categories": {"contains": "Trav"}},
            {"wildcard": {"categories": {"value": "*Trav*", "case_insensitive": True}}},
        ),
        ({"created_at": {"gte": "2024-02-01"}}, {"range": {"created_us": {"gte": 1706745600000000}}}),
        ({"updated_at": {"lt": "2024-02-09T08:00:00.250001Z"}}, {"range": {"updated_us": {"lt": 1707465600250001}}}),
        ({"created_at": "2024-02-01T00:00:00Z"}, {"term": {"created_us": 1706745600000000}}),
        (
            {"created_at": {"in": ["2024-02-01", 0]}},
            {"terms": {"created_us": [1706745600000000, 0]}},
        ),
        ({"expiration_date": {"lte": "2030-06-30"}}, {"range": {"expiration_date": {"lte": "2030-06-30"}}}),
        ({"expiration_date": "2030-06-30"}, {"range": {"expiration_date": {"gte": "2030-06-30", "lte": "2030-06-30"}}}),
        (
            {"expiration_date": {"ne": "2030-06-30"}},
            {"bool": {"must_not": [{"range": {"expiration_date": {"gte": "2030-06-30", "lte": "2030-06-30"}}}]}},
        ),
        ({"metadata": {"topic": "sport"}}, {"term": {"metadata_terms": '["topic","sport"]'}}),
        (
            {"metadata.topic": {"nin": ["a", "b"]}},
            {"bool": {"must_not": [{"terms": {"metadata_terms": ['["topic","a"]', '["topic","b"]']}}]}},
        ),
        (
            {"OR": [{"user_id": "bob"}, {"AND": [{"user_id": "alice"}, {"categories": "food"}]}]},
            {
                "bool": {
                    "should": [
                        {"term": {"user_id": "bob"}},
                        {"bool": {"filter": [{"term": {"user_id": "alice"}}, {"term": {"categories": "food"}}]}},
                    ],
                    "minimum_should_match": 1,
                }
            },
        ),
        ({"NOT": {"user_id": {"ne": "bob"}}}, {"term": {"user_id": "bob"}}),
        ({}, None),
    ],
)
def test_given_a_translatable_filter_when_translated_then_this_exact_query(raw: dict[str, Any], expected: Any):
    assert query(raw) == expected


def test_given_internal_conditions_of_the_service_when_translated_then_state_and_expiry_are_queries():
    # What MemoryService adds to every search: active memories that have not expired.
    today = date(2024, 6, 1)
    expr = f.conjoin(
        parse({"user_id": "alice"}),
        f.Condition("state", "eq", LifecycleState.ACTIVE.value),
        f.Or((f.Not(f.Condition("expiration_date", "exists", None)), f.Condition("expiration_date", "gte", today))),
    )

    translation = translate(expr)

    assert translation.exact
    assert translation.query == {
        "bool": {
            "filter": [
                {"term": {"user_id": "alice"}},
                {"term": {"state": "active"}},
                {
                    "bool": {
                        "should": [
                            {"bool": {"must_not": [{"exists": {"field": "expiration_date"}}]}},
                            {"range": {"expiration_date": {"gte": "2024-06-01"}}},
                        ],
                        "minimum_should_match": 1,
                    }
                },
            ]
        }
    }


def test_given_the_facets_a_question_asks_about_when_translated_then_a_terms_query_on_the_facets_field():
    # What MemoryService adds to find the memories that answer a question ("Where does she work?").
    expr = f.conjoin(parse({"user_id": "alice"}), f.Condition("facets", "in", ["occupation", "employer"]))

    translation = translate(expr)

    assert translation.exact
    assert translation.query == {
        "bool": {"filter": [{"term": {"user_id": "alice"}}, {"terms": {"facets": ["occupation", "employer"]}}]}
    }
    stated = MemoryRecord.create("I quit Google and joined Stripe", Scope(user_id="alice"))
    assert document(stated, np.zeros(4, dtype=np.float32), english())["facets"] == ["employer"]


@pytest.mark.parametrize(
    "raw",
    [
        {"memory": {"icontains": "porto"}},
        {"metadata.priority": {"gte": 2}},
        {"metadata.priority": 3},
        {"metadata.flag": "True"},
        {"metadata.code": "42"},
        {"metadata.tags": "*"},
        {"user_id": {"icontains": "ÄLICE"}},
    ],
)
def test_given_a_condition_without_an_exact_query_when_translated_then_it_is_relaxed_and_marked_inexact(
    raw: dict[str, Any],
):
    plain = translate(parse(raw))
    negated = translate(parse({"NOT": raw}))
    scoped = translate(parse({"AND": [{"user_id": "alice"}, raw]}))

    # Alone it restricts nothing (post-filtered); under NOT, likewise; beside an exact condition, that one stays.
    assert (plain.query, plain.exact, plain.matches_nothing) == (None, False, False)
    assert (negated.query, negated.exact, negated.matches_nothing) == (None, False, False)
    assert scoped.query == {"term": {"user_id": "alice"}} and not scoped.exact


def test_given_a_filter_that_can_match_nothing_when_translated_then_no_search_is_needed():
    nothing: list[dict[str, Any]] = [{"user_id": {"in": []}}, {"NOT": {"categories": {"nin": []}}}]
    for raw in nothing:
        translation = translate(parse(raw))
        assert translation.matches_nothing and translation.exact, raw
    assert translate(parse({"AND": [{"user_id": []}, {"memory": {"contains": "x"}}]})).matches_nothing
    assert translate(f.Condition("id", "in", ())).query is None
    assert MATCH_NONE == {"match_none": {}}


def test_given_instants_far_from_the_epoch_when_converted_then_microseconds_are_exact():
    assert micros(datetime(1970, 1, 1, tzinfo=UTC)) == 0
    assert micros(datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)) == -1
    assert micros(datetime(2024, 2, 1, tzinfo=UTC)) == 1706745600 * 10**6
    for moment in (datetime(1900, 1, 1, tzinfo=UTC), datetime(2400, 1, 1, tzinfo=UTC)):
        later = moment + timedelta(microseconds=1)
        assert micros(later) - micros(moment) == 1  # no float rounding, even centuries away
        assert micros(moment) == calendar.timegm(moment.utctimetuple()) * 10**6
    assert micros(datetime(2024, 1, 1, 5, 30)) == micros(datetime(2024, 1, 1, 5, 30, tzinfo=UTC))


# ---- agreement with the predicate, on varied memories -------------------------------------------------


def _values(doc: dict[str, Any], field: str) -> list[Any]:
    value = doc.get(field)
    if value is None:
        return []
    return [v for v in value if v is not None] if isinstance(value, list) else [value]


def _wildcard(pattern: str, case_insensitive: bool) -> re.Pattern[str]:
    parts, escaped = [], False
    for char in pattern:
        if escaped:
            parts.append(re.escape(char))
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            parts.append({"*": ".*", "?": "."}.get(char, re.escape(char)))
    return re.compile("".join(parts), re.DOTALL | (re.IGNORECASE if case_insensitive else 0))


def opensearch_matches(q: dict[str, Any], doc: dict[str, Any]) -> bool:
    """How OpenSearch evaluates the clauses the translation emits, on an indexed document."""
    ((kind, body),) = q.items()
    if kind in ("match_all", "match_none"):
        return kind == "match_all"
    if kind == "bool":
        ok = all(opensearch_matches(c, doc) for c in body.get("filter", []) + body.get("must", []))
        if "should" in body:
            ok = ok and any(opensearch_matches(c, doc) for c in body["should"])
        return ok and not any(opensearch_matches(c, doc) for c in body.get("must_not", []))
    ((field, arg),) = body.items()
    if kind not in _LEAF_CLAUSES:
        raise AssertionError(f"unexpected clause {kind}")
    return _LEAF_CLAUSES[kind](doc, field, arg)


_ORDER = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}


def _wildcard_matches(doc: dict[str, Any], field: str, arg: dict[str, Any]) -> bool:
    pattern = _wildcard(arg["value"], arg.get("case_insensitive", False))
    return any(isinstance(v, str) and pattern.fullmatch(v) for v in _values(doc, field))


_LEAF_CLAUSES: dict[str, Callable[[dict[str, Any], str, Any], bool]] = {
    "term": lambda doc, field, arg: arg in _values(doc, field),
    "terms": lambda doc, field, arg: any(v in arg for v in _values(doc, field)),
    "exists": lambda doc, _field, arg: bool(_values(doc, arg)),
    "range": lambda doc, field, arg: any(all(_ORDER[op](v, x) for op, x in arg.items()) for v in _values(doc, field)),
    "wildcard": _wildcard_matches,
}


def _memories() -> list[MemoryRecord]:
    scopes = [
        Scope(user_id="alice"),
        Scope(user_id="bob", agent_id="helper"),
        Scope(agent_id="helper", run_id="r-1"),
        Scope(user_id="", app_id="app"),
        Scope(user_id="ALICE*?", run_id="r-2"),
    ]
    metadata: list[dict[str, Any]] = [
        {},
        {"topic": "sport", "priority": 3},
        {"topic": "Sport", "priority": "3", "tags": ["a", "b", 4]},
        {"topic": ["sport", "food"], "flag": True, "nested": {"topic": "sport"}},
        {"priority": 2.5, "flag": "True", "code": "42", "tags": []},
        {"topic": None, "code": 42, "tags": "a"},
    ]
    categories: list[tuple[str, ...]] = [(), ("travel",), ("Travel", "food"), ("",), ("hobbies", "work")]
    out = []
    for i in range(30):
        out.append(
            MemoryRecord.create(
                ["I go hiking in the Alps.", "Grandma lives in Porto.", "Chess online"][i % 3],
                scopes[i % len(scopes)],
                at=T0 + timedelta(days=i, microseconds=i),
                metadata=metadata[i % len(metadata)],
                categories=categories[i % len(categories)],
                actor_id=["ana", None, ""][i % 3],
                role=["user", "assistant", None, ""][i % 4],
                expiration_date=[None, date(2024, 3, 10), date(2030, 6, 30)][i % 3],
                state=LifecycleState.ACTIVE if i % 7 else LifecycleState.SUPERSEDED,
            ).changed(updated_at=T0 + timedelta(days=30 - i))
        )
    return out


FILTERS: list[dict[str, Any]] = [
    {"user_id": "alice"},
    {"user_id": ""},
    {"user_id": {"ne": "alice"}},
    {"user_id": ["alice", "bob"]},
    {"user_id": {"nin": ["alice", ""]}},
    {"user_id": "*"},
    {"agent_id": "*"},
    {"user_id": {"contains": "LI"}},
    {"user_id": {"contains": "E*?"}},
    {"user_id": {"icontains": "li"}},
    {"user_id": {"icontains": ""}},
    {"actor_id": "*"},
    {"role": {"in": ["user", ""]}},
    {"app_id": "app"},
    {"categories": "travel"},
    {"categories": {"ne": "travel"}},
    {"categories": {"in": ["food", "work"]}},
    {"categories": {"nin": ["food", "travel"]}},
    {"categories": "*"},
    {"categories": {"contains": "TRAV"}},
    {"categories": {"icontains": "ob"}},
    {"created_at": {"gte": "2024-03-10", "lt": "2024-03-20"}},
    {"created_at": {"gt": (T0 + timedelta(days=3, microseconds=3)).isoformat()}},
    {"created_at": (T0 + timedelta(days=4, microseconds=4)).isoformat()},
    {"created_at": {"ne": (T0 + timedelta(days=4, microseconds=4)).isoformat()}},
    {"updated_at": {"lte": "2024-03-15"}},
    {"expiration_date": "*"},
    {"expiration_date": {"gte": "2024-06-01"}},
    {"expiration_date": {"lt": "2030-06-30"}},
    {"expiration_date": {"in": ["2024-03-10", "2031-01-01"]}},
    {"expiration_date": {"nin": ["2024-03-10"]}},
    {"expiration_date": {"ne": "2030-06-30"}},
    {"metadata": {"topic": "sport"}},
    {"metadata": {"topic": {"ne": "sport"}}},
    {"metadata.topic": {"in": ["food", "Sport"]}},
    {"metadata.topic": {"nin": ["sport"]}},
    {"metadata.tags": "a"},
    {"metadata.priority": 3},
    {"metadata.priority": {"gte": 2.5}},
    {"metadata.flag": "True"},
    {"metadata.code": "42"},
    {"metadata.topic": "*"},
    {"memory": {"icontains": "porto"}},
    {"memory_ids": ["not-there"]},
    {"OR": [{"user_id": "bob"}, {"categories": "food"}]},
    {"NOT": [{"categories": "travel"}, {"metadata.topic": "sport"}]},
    {"NOT": {"metadata.priority": {"gte": 3}}},
    {"AND": [{"user_id": {"ne": "bob"}}, {"OR": [{"metadata.flag": "True"}, {"NOT": {"role": "*"}}]}]},
    {"OR": [{"memory": {"contains": "Chess"}}, {"NOT": {"agent_id": "helper"}}]},
]


@pytest.mark.parametrize("raw", FILTERS)
def test_given_varied_memories_when_a_filter_is_translated_then_opensearch_would_select_what_the_predicate_does(
    raw: dict[str, Any],
):
    expr = parse(raw)
    check = f.predicate(expr)
    translation = translate(expr)
    memories = _memories()
    vector = np.zeros(4, dtype=np.float32)

    for record in memories:
        wanted = check(record.filter_document())
        if translation.matches_nothing:
            assert not wanted, (raw, record)
            continue
        selected = translation.query is None or opensearch_matches(
            translation.query, document(record, vector, english())
        )
        if translation.exact:
            assert selected == wanted, (raw, record)
        else:
            assert selected or not wanted, (raw, record)  # a superset: the post-filter removes the rest
    assert any(check(r.filter_document()) for r in memories) or raw in (
        {"memory_ids": ["not-there"]},
        {"metadata.topic": {"nin": ["sport"]}},
    )


def test_given_metadata_when_indexed_then_text_values_and_text_list_elements_become_terms():
    record = MemoryRecord.create(
        "x",
        Scope(user_id="u"),
        metadata={"topic": "sport", "tags": ["a", 1, "b"], "n": 3, "flag": True, "o": {"k": "v"}, 'we"ird': "x"},
    )

    doc = document(record, np.zeros(2, dtype=np.float32), english())

    assert doc["metadata_terms"] == [
        '["topic","sport"]',
        '["tags","a"]',
        '["tags","b"]',
        '["we\\"ird","x"]',
    ]
    assert metadata_term('we"ird', "x") == '["we\\"ird","x"]'
