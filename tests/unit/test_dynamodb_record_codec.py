"""Dataclass records as item attributes and back (mnemo.adapters.dynamodb.record_codec): each field by its annotation,
None left out, what a store keeps another way omitted and given back, and what an earlier layout did not write."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum

import pytest

from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item

AT = datetime(2024, 5, 8, 14, 30, 0, 123456, tzinfo=UTC)
ISO = "2024-05-08T14:30:00.123456+00:00"


class State(StrEnum):
    OPEN = "open"
    SHUT = "shut"


@dataclass(frozen=True, slots=True)
class Record:
    id: str
    count: int
    ratio: float
    on: bool
    state: State
    at: datetime
    note: str | None
    closed_at: datetime | None = None
    tags: tuple[str, ...] = ()
    mode: str = "batch"
    extra: dict[str, int] = field(default_factory=dict)


RECORD = Record("r1", 3, 2, True, State.SHUT, AT, None, tags=("a",), extra={"x": 1})


def test_given_a_record_then_each_field_is_the_attribute_of_its_name_and_none_is_left_out() -> None:
    assert as_attributes(RECORD, omit=("tags", "extra")) == {
        "id": {"S": "r1"},
        "count": {"N": "3"},
        "ratio": {"N": "2.0"},  # a float field stays a float, given a whole number
        "on": {"BOOL": True},
        "state": {"S": "shut"},
        "at": {"S": ISO},
        "mode": {"S": "batch"},
    }


def test_given_an_item_then_the_record_again_with_what_the_store_gives() -> None:
    item = {**as_attributes(RECORD, omit=("tags", "extra")), "pk": {"S": "R#r1"}}  # other attributes are not fields

    assert from_item(Record, item, tags=("a",), extra={"x": 1}) == RECORD


def test_given_an_item_of_an_earlier_layout_then_defaults_for_what_it_lacks() -> None:
    item = as_attributes(RECORD, omit=("tags", "extra", "mode", "closed_at"))

    found = from_item(Record, item)

    assert (found.mode, found.tags, found.extra, found.closed_at, found.note) == ("batch", (), {}, None, None)


def test_given_an_item_without_a_required_field_then_key_error() -> None:
    item = as_attributes(RECORD, omit=("tags", "extra", "count"))

    with pytest.raises(KeyError, match="count"):
        from_item(Record, item)


def test_given_an_empty_moment_where_none_is_allowed_then_none() -> None:
    item = {**as_attributes(RECORD, omit=("tags", "extra")), "closed_at": {"S": ""}}

    assert from_item(Record, item).closed_at is None


def test_given_a_field_of_no_simple_type_stored_then_the_store_must_give_it() -> None:
    item = {**as_attributes(RECORD, omit=("tags", "extra")), "tags": {"S": '["a"]'}}

    with pytest.raises(TypeError, match="tags"):
        from_item(Record, item)
