"""The filter grammar: parsing, validation errors that name the culprit, evaluation, and analysis."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest

from mnemo.domain.filters import (
    And,
    Condition,
    Not,
    Or,
    fields_of,
    matches,
    mentions_entity,
    parse,
    pinned_values,
    predicate,
)
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.errors import ValidationError

CREATED = datetime(2024, 3, 15, 10, 30, 0, 500000, tzinfo=UTC)


def doc(**overrides: Any) -> dict[str, Any]:
    """A filter document as MemoryRecord.filter_document() builds it."""
    record = MemoryRecord.create(
        "Alice's sister lives in Lisbon",
        Scope(user_id="alice", agent_id="travel-bot", run_id=None, app_id="app-1"),
        at=CREATED,
        metadata={
            "priority": 3,
            "score": 0.75,
            "vip": True,
            "city": "Lisbon",
            "tags": ["family", "travel"],
            "since": "2021-06-01",
            "count_str": "12",
        },
        categories=("family", "personal_details"),
        actor_id="ana",
        role="user",
        expiration_date=date(2024, 12, 31),
    )
    base = record.filter_document()
    base.update(overrides)
    return base


def check(raw: dict[str, Any], document: dict[str, Any] | None = None) -> bool:
    return matches(parse(raw), document if document is not None else doc())


# ---- parsing -------------------------------------------------------------------------------------------


def test_given_no_filter_when_parsed_then_it_matches_everything():
    expr = parse(None)

    assert expr == And(())
    assert matches(expr, doc())
    assert predicate(expr)({})
    assert matches(parse({}), doc())


def test_given_a_bare_value_when_parsed_then_equality():
    assert parse({"user_id": "alice"}) == Condition("user_id", "eq", "alice")


def test_given_a_list_when_parsed_then_membership():
    assert parse({"user_id": ["alice", "bob"]}) == Condition("user_id", "in", ("alice", "bob"))


def test_given_the_wildcard_when_parsed_then_exists():
    assert parse({"agent_id": "*"}) == Condition("agent_id", "exists", None)


def test_given_sibling_keys_when_parsed_then_they_are_anded():
    expr = parse({"user_id": "alice", "role": "user"})

    assert expr == And((Condition("user_id", "eq", "alice"), Condition("role", "eq", "user")))


def test_given_several_operators_on_one_field_when_parsed_then_all_must_hold():
    expr = parse({"created_at": {"gte": "2024-01-01", "lt": "2024-02-01"}})

    assert expr == And(
        (
            Condition("created_at", "gte", datetime(2024, 1, 1, tzinfo=UTC)),
            Condition("created_at", "lt", datetime(2024, 2, 1, tzinfo=UTC)),
        )
    )


def test_given_metadata_in_both_spellings_when_parsed_then_the_same_condition():
    nested = parse({"metadata": {"city": "Lisbon"}})
    dotted = parse({"metadata.city": "Lisbon"})

    assert nested == dotted == Condition("metadata", "eq", "Lisbon", key="city")


def test_given_aliases_when_parsed_then_they_map_to_the_canonical_fields():
    assert parse({"text": {"contains": "Lisbon"}}) == Condition("memory", "contains", "Lisbon")
    assert parse({"memory_id": "m1"}) == Condition("id", "eq", "m1")
    assert parse({"memory_ids": ["m1", "m2"]}) == Condition("id", "in", ("m1", "m2"))


def test_given_not_as_an_object_or_a_list_when_parsed_then_it_negates_the_or_of_the_list():
    assert parse({"NOT": {"role": "user"}}) == Not(Condition("role", "eq", "user"))
    assert parse({"NOT": [{"role": "user"}, {"role": "assistant"}]}) == Not(
        Or((Condition("role", "eq", "user"), Condition("role", "eq", "assistant")))
    )


def test_given_a_numeric_id_when_parsed_then_it_is_compared_as_a_string():
    assert parse({"user_id": 42}) == Condition("user_id", "eq", "42")
    assert check({"user_id": 42}, doc(user_id="42"))


# ---- operators -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"user_id": {"eq": "alice"}}, True),
        ({"user_id": {"eq": "Alice"}}, False),
        ({"user_id": {"ne": "bob"}}, True),
        ({"user_id": {"ne": "alice"}}, False),
        ({"user_id": {"in": ["bob", "alice"]}}, True),
        ({"user_id": {"in": ["bob", "carol"]}}, False),
        ({"user_id": {"nin": ["bob", "carol"]}}, True),
        ({"user_id": {"nin": ["alice"]}}, False),
        ({"user_id": {"contains": "lic"}}, True),
        ({"user_id": {"contains": "LIC"}}, False),
        ({"user_id": {"icontains": "LIC"}}, True),
        ({"user_id": {"icontains": "bob"}}, False),
        ({"memory": {"contains": "Lisbon"}}, True),
        ({"memory": {"contains": "lisbon"}}, False),
        ({"memory": {"icontains": "LISBON"}}, True),
        ({"memory": "Alice's sister lives in Lisbon"}, True),
        ({"memory": {"ne": "Alice's sister lives in Lisbon"}}, False),
        ({"metadata.priority": {"gt": 2}}, True),
        ({"metadata.priority": {"gt": 3}}, False),
        ({"metadata.priority": {"gte": 3}}, True),
        ({"metadata.priority": {"gte": 4}}, False),
        ({"metadata.priority": {"lt": 4}}, True),
        ({"metadata.priority": {"lt": 3}}, False),
        ({"metadata.priority": {"lte": 3}}, True),
        ({"metadata.priority": {"lte": 2.9}}, False),
        ({"metadata.score": {"gt": 0.5, "lt": 1}}, True),
        ({"metadata.priority": 3}, True),
        ({"metadata.priority": "3"}, True),  # a number and its string form are equal
        ({"metadata.count_str": {"gt": 9}}, True),  # a numeric string compares as a number against a number
        ({"metadata.city": {"gt": "Berlin"}}, True),  # strings compare as strings
        ({"metadata.vip": True}, True),
        ({"metadata.vip": False}, False),
        ({"metadata.vip": 1}, False),  # booleans only equal booleans
        ({"metadata.city": {"in": ["Porto", "Lisbon"]}}, True),
        ({"metadata.city": {"nin": ["Porto", "Lisbon"]}}, False),
        ({"metadata.city": {"icontains": "lis"}}, True),
        ({"metadata.priority": {"contains": "3"}}, False),  # contains needs a string value to look in
    ],
)
def test_given_each_operator_when_evaluated_then_it_holds_exactly_when_expected(raw: dict[str, Any], expected: bool):
    assert check(raw) is expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"agent_id": "*"}, True),
        ({"run_id": "*"}, False),  # None
        ({"metadata.city": "*"}, True),
        ({"metadata.missing": "*"}, False),
        ({"categories": "*"}, True),
    ],
)
def test_given_the_wildcard_when_evaluated_then_it_means_has_a_value(raw: dict[str, Any], expected: bool):
    assert check(raw) is expected


def test_given_empty_values_when_the_wildcard_is_evaluated_then_they_do_not_count_as_a_value():
    assert not check({"categories": "*"}, doc(categories=[]))
    assert not check({"metadata.city": "*"}, doc(metadata={"city": ""}))
    assert check({"metadata.zero": "*"}, doc(metadata={"zero": 0}))
    assert check({"metadata.off": "*"}, doc(metadata={"off": False}))


# ---- missing values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"run_id": "r1"}, False),
        ({"run_id": {"ne": "r1"}}, True),
        ({"run_id": {"in": ["r1"]}}, False),
        ({"run_id": {"nin": ["r1"]}}, True),
        ({"run_id": {"contains": "r"}}, False),
        ({"metadata.missing": "x"}, False),
        ({"metadata.missing": {"ne": "x"}}, True),
        ({"metadata.missing": {"gt": 1}}, False),
        ({"metadata.missing": {"lte": 1}}, False),
        ({"metadata.missing": {"nin": [1]}}, True),
    ],
)
def test_given_a_missing_value_when_evaluated_then_only_negative_operators_hold(raw: dict[str, Any], expected: bool):
    assert check(raw) is expected


def test_given_a_document_without_metadata_when_a_metadata_filter_is_evaluated_then_it_does_not_match():
    assert not check({"metadata.city": "Lisbon"}, doc(metadata=None))
    assert check({"metadata.city": {"ne": "Lisbon"}}, doc(metadata={}))


def test_given_no_expiration_date_when_compared_then_range_operators_do_not_hold():
    undated = doc(expiration_date=None)

    assert not check({"expiration_date": {"gte": "2000-01-01"}}, undated)
    assert not check({"expiration_date": {"lt": "2100-01-01"}}, undated)
    assert check({"expiration_date": {"ne": "2024-12-31"}}, undated)


# ---- lists ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"categories": "family"}, True),
        ({"categories": "travel"}, False),
        ({"categories": {"eq": "personal_details"}}, True),
        ({"categories": {"ne": "family"}}, False),
        ({"categories": {"ne": "travel"}}, True),
        ({"categories": ["travel", "family"]}, True),
        ({"categories": {"in": ["travel", "food"]}}, False),
        ({"categories": {"nin": ["travel", "food"]}}, True),
        ({"categories": {"nin": ["food", "family"]}}, False),
        ({"categories": {"contains": "person"}}, True),
        ({"categories": {"icontains": "PERSON"}}, True),
        ({"categories": {"contains": "food"}}, False),
        ({"metadata.tags": "travel"}, True),
        ({"metadata.tags": {"in": ["work", "family"]}}, True),
        ({"metadata.tags": {"nin": ["work", "family"]}}, False),
        ({"metadata.tags": {"ne": "work"}}, True),
    ],
)
def test_given_list_values_when_evaluated_then_they_match_by_membership(raw: dict[str, Any], expected: bool):
    assert check(raw) is expected


def test_given_a_list_of_numbers_when_compared_by_range_then_any_member_may_satisfy_it():
    numbers = doc(metadata={"scores": [1, 5, 9]})

    assert check({"metadata.scores": {"gt": 8}}, numbers)
    assert not check({"metadata.scores": {"gt": 9}}, numbers)
    assert check({"metadata.scores": {"lte": 1}}, numbers)


def test_given_an_empty_category_list_when_evaluated_then_only_negative_membership_holds():
    none = doc(categories=[])

    assert not check({"categories": "family"}, none)
    assert check({"categories": {"ne": "family"}}, none)
    assert check({"categories": {"nin": ["family"]}}, none)


# ---- dates and times -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"created_at": {"gte": "2024-03-15"}}, True),  # date-only means midnight UTC
        ({"created_at": {"gt": "2024-03-16"}}, False),
        ({"created_at": {"lt": "2024-03-16"}}, True),
        ({"created_at": {"lt": "2024-03-15"}}, False),
        ({"created_at": {"gt": "2024-03-15T10:30:00.499999Z"}}, True),  # microseconds count
        ({"created_at": {"gt": "2024-03-15T10:30:00.500000Z"}}, False),
        ({"created_at": "2024-03-15T10:30:00.5+00:00"}, True),
        ({"created_at": "2024-03-15T12:30:00.5+02:00"}, True),  # the same instant in another offset
        ({"created_at": {"ne": "2024-03-15T10:30:00.5Z"}}, False),
        ({"created_at": {"lte": "2024-03-15T06:30:00.5-04:00"}}, True),
        ({"created_at": {"lt": "2024-03-15T06:30:00.5-04:00"}}, False),
        ({"created_at": {"gte": "2024-03-15T10:30:00"}}, True),  # naive means UTC
        ({"created_at": {"lt": CREATED.timestamp() + 1}}, True),  # Unix seconds
        ({"created_at": {"gt": CREATED.timestamp() + 1}}, False),
        ({"created_at": {"in": ["2024-01-01", "2024-03-15T10:30:00.5Z"]}}, True),
        ({"updated_at": {"gte": "2024-03-01", "lt": "2024-04-01"}}, True),
        ({"expiration_date": "2024-12-31"}, True),
        ({"expiration_date": {"gte": "2024-12-31"}}, True),
        ({"expiration_date": {"gt": "2024-12-31"}}, False),
        ({"expiration_date": {"lt": "2025-01-01"}}, True),
        ({"expiration_date": {"lte": "2024-12-31T23:59:59Z"}}, True),  # a date-time compares by its date
        ({"expiration_date": {"nin": ["2024-12-31"]}}, False),
    ],
)
def test_given_dates_when_compared_with_iso_strings_then_they_compare_as_instants(raw: dict[str, Any], expected: bool):
    assert check(raw) is expected


def test_given_a_stored_datetime_expiration_when_compared_then_it_is_treated_as_its_date():
    assert check({"expiration_date": "2024-12-31"}, doc(expiration_date=datetime(2024, 12, 31, 18, tzinfo=UTC)))


def test_given_datetime_objects_when_parsed_then_they_become_aware_datetimes():
    aware = datetime(2024, 3, 15, 12, 30, 0, 500000, tzinfo=timezone(timedelta(hours=2)))

    assert parse({"created_at": aware}) == Condition("created_at", "eq", aware)
    assert check({"created_at": aware})
    assert parse({"created_at": datetime(2024, 1, 1)}) == Condition(
        "created_at", "eq", datetime(2024, 1, 1, tzinfo=UTC)
    )
    assert parse({"expiration_date": date(2024, 12, 31)}) == Condition("expiration_date", "eq", date(2024, 12, 31))


def test_given_metadata_dates_as_strings_when_compared_then_iso_order_holds():
    assert check({"metadata.since": {"gte": "2021-01-01"}})
    assert not check({"metadata.since": {"gt": "2021-06-01"}})


# ---- logic ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"AND": [{"user_id": "alice"}, {"role": "user"}]}, True),
        ({"AND": [{"user_id": "alice"}, {"role": "assistant"}]}, False),
        ({"OR": [{"user_id": "bob"}, {"role": "user"}]}, True),
        ({"OR": [{"user_id": "bob"}, {"role": "assistant"}]}, False),
        ({"NOT": {"user_id": "bob"}}, True),
        ({"NOT": {"user_id": "alice"}}, False),
        ({"NOT": [{"user_id": "bob"}, {"role": "assistant"}]}, True),
        ({"NOT": [{"user_id": "bob"}, {"role": "user"}]}, False),  # NOT of a list negates their OR
        ({"user_id": "alice", "OR": [{"categories": "travel"}, {"metadata.vip": True}]}, True),
        ({"user_id": "alice", "OR": [{"categories": "travel"}, {"metadata.vip": False}]}, False),
        ({"OR": [{"AND": [{"user_id": "bob"}, {"role": "user"}]}, {"NOT": {"categories": "travel"}}]}, True),
        ({"AND": [{"OR": [{"user_id": "bob"}, {"agent_id": "travel-bot"}]}, {"NOT": {"role": "assistant"}}]}, True),
        ({"NOT": {"NOT": {"user_id": "alice"}}}, True),
    ],
)
def test_given_logical_operators_when_evaluated_then_boolean_logic_holds(raw: dict[str, Any], expected: bool):
    assert check(raw) is expected


# ---- validation ----------------------------------------------------------------------------------------


def rejection(raw: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        parse(raw)
    return caught.value.message


def test_given_an_unknown_field_when_parsed_then_the_error_names_it():
    message = rejection({"user_id": "alice", "colour": "blue"})

    assert "colour" in message
    assert "Unknown filter field" in message


def test_given_an_unknown_field_inside_logic_when_parsed_then_the_error_names_it_and_where():
    message = rejection({"OR": [{"user_id": "a"}, {"AND": [{"favourite_colour": "blue"}]}]})

    assert "favourite_colour" in message
    assert "OR[1].AND[0]" in message


@pytest.mark.parametrize("operator", ["$eq", "equals", "like", "regex", "EQ", "between"])
def test_given_an_unknown_operator_when_parsed_then_the_error_names_it(operator: str):
    message = rejection({"user_id": {operator: "alice"}})

    assert f"'{operator}'" in message
    assert "user_id" in message


@pytest.mark.parametrize(
    ("field", "operator"),
    [
        ("memory", "gt"),
        ("memory", "in"),
        ("user_id", "gte"),
        ("categories", "lt"),
        ("created_at", "contains"),
        ("expiration_date", "icontains"),
    ],
)
def test_given_an_operator_unsupported_on_a_field_when_parsed_then_the_error_names_both(field: str, operator: str):
    value: Any = ["x"] if operator in ("in", "nin") else "2024-01-01"

    message = rejection({field: {operator: value}})

    assert f"'{operator}'" in message
    assert f"'{field}'" in message


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"metadata": "x"}, "metadata"),
        ({"metadata": {"": 1}}, "metadata"),
        ({"user_id": {}}, "user_id"),
        ({"AND": []}, "AND"),
        ({"OR": {"user_id": "a"}}, "OR"),
        ({"AND": ["user_id"]}, "AND"),
        ({"NOT": []}, "NOT"),
        ({"user_id": {"in": "alice"}}, "'in'"),
        ({"user_id": {"eq": ["a"]}}, "'eq'"),
        ({"user_id": {"eq": {"nested": 1}}}, "user_id"),
        ({"memory": {"contains": 5}}, "'contains'"),
        ({"user_id": 1.5}, "user_id"),
        ({"created_at": {"gt": "yesterday"}}, "created_at"),
        ({"created_at": {"gt": True}}, "created_at"),
        ({"expiration_date": "31/12/2024"}, "expiration_date"),
    ],
)
def test_given_malformed_filters_when_parsed_then_a_validation_error_says_where(raw: dict[str, Any], fragment: str):
    assert fragment in rejection(raw)


def test_given_a_non_object_when_parsed_then_rejected():
    assert "JSON object" in rejection(["user_id", "alice"])


# ---- analysis ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, None),
        ({"user_id": "alice"}, {"alice"}),
        ({"user_id": ["alice", "bob"]}, {"alice", "bob"}),
        ({"user_id": {"in": ["alice", "bob"]}}, {"alice", "bob"}),
        ({"user_id": "alice", "categories": "x"}, {"alice"}),
        ({"AND": [{"user_id": ["alice", "bob"]}, {"user_id": ["bob", "carol"]}]}, {"bob"}),
        ({"AND": [{"user_id": "alice"}, {"user_id": "bob"}]}, set()),
        ({"OR": [{"user_id": "alice"}, {"user_id": "bob", "role": "user"}]}, {"alice", "bob"}),
        ({"OR": [{"user_id": "alice"}, {"role": "user"}]}, None),
        ({"user_id": {"ne": "alice"}}, None),
        ({"user_id": {"nin": ["alice"]}}, None),
        ({"user_id": "*"}, None),
        ({"user_id": {"contains": "ali"}}, None),
        ({"NOT": {"user_id": "alice"}}, None),
        ({"agent_id": "bot"}, None),
        ({"metadata.user_id": "alice"}, None),
    ],
)
def test_given_filters_when_pinned_user_values_are_asked_then_only_forced_values_are_returned(
    raw: dict[str, Any] | None, expected: set[str] | None
):
    assert pinned_values(parse(raw), "user_id") == expected


def test_given_a_pinned_agent_when_asked_for_the_agent_then_it_is_returned():
    expr = parse({"user_id": "alice", "agent_id": ["bot-1", "bot-2"]})

    assert pinned_values(expr, "agent_id") == {"bot-1", "bot-2"}
    assert pinned_values(expr, "run_id") is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, False),
        ({"user_id": "alice"}, True),
        ({"agent_id": ["a", "b"]}, True),
        ({"run_id": "*"}, True),
        ({"user_id": {"icontains": "ali"}}, True),
        ({"categories": "x", "AND": [{"run_id": "r1"}]}, True),
        ({"OR": [{"user_id": "alice"}, {"agent_id": "bot"}]}, True),
        ({"user_id": {"ne": "alice"}}, False),
        ({"user_id": {"nin": ["alice"]}}, False),
        ({"NOT": {"user_id": "alice"}}, False),
        ({"app_id": "app-1"}, False),
        ({"actor_id": "ana"}, False),
        ({"metadata": {"user_id": "alice"}}, False),
        ({"categories": "family"}, False),
    ],
)
def test_given_filters_when_asked_whether_they_name_an_entity_then_only_positive_entity_conditions_count(
    raw: dict[str, Any] | None, expected: bool
):
    assert mentions_entity(parse(raw)) is expected


def test_an_entity_id_longer_than_any_stored_one_is_a_400_in_filters_and_scopes() -> None:
    from mnemo.domain.entity_ids import MAX_ENTITY_ID_LENGTH
    from mnemo.domain.memory import Scope

    longest = "u" * MAX_ENTITY_ID_LENGTH
    assert parse({"user_id": longest}) == Condition("user_id", "eq", longest)
    assert Scope(user_id=longest).user_id == longest
    for raw in (
        {"user_id": longest + "u"},
        {"agent_id": {"in": ["a", longest + "a"]}},
        {"AND": [{"run_id": {"ne": longest + "r"}}]},
    ):
        with pytest.raises(ValidationError, match="too long"):
            parse(raw)
    with pytest.raises(ValidationError, match="app_id is too long"):
        Scope(user_id="u", app_id=longest + "a")


def test_given_a_nested_filter_then_fields_of_names_every_field_it_reads():
    expr = parse(
        {"AND": [{"user_id": "u"}, {"OR": [{"agent_id": "a"}, {"metadata": {"k": 1}}]}, {"NOT": {"memory_ids": ["x"]}}]}
    )

    assert fields_of(expr) == {"user_id", "agent_id", "metadata", "id"}
