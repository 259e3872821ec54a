"""Python values as DynamoDB attribute values and back (mnemo.adapters.dynamodb.attributes): each type's form, None
left out of an item, and the readers of one attribute with their defaults."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from enum import StrEnum

import pytest

from mnemo.adapters.dynamodb.attributes import (
    attributes,
    binary,
    flag,
    integer,
    moment_of,
    placeholders,
    python_of,
    real,
    text,
    text_or_none,
    value,
)

AT = datetime(2024, 5, 8, 14, 30, 0, 123456, tzinfo=UTC)


class Colour(StrEnum):
    RED = "red"


ISO = "2024-05-08T14:30:00.123456+00:00"


@pytest.mark.parametrize(
    ("python", "stored", "read_back"),
    [
        ("café", {"S": "café"}, "café"),
        ("", {"S": ""}, ""),
        (7, {"N": "7"}, 7),
        (-3, {"N": "-3"}, -3),
        (12.25, {"N": "12.25"}, 12.25),
        (True, {"BOOL": True}, True),  # a bool, not the number 1
        (False, {"BOOL": False}, False),
        (None, {"NULL": True}, None),
        (b"\x00\x01", {"B": b"\x00\x01"}, b"\x00\x01"),
        (Colour.RED, {"S": "red"}, "red"),
        (AT, {"S": ISO}, ISO),
        ({"a": 1, "b": [True, None]}, {"M": {"a": {"N": "1"}, "b": {"L": [{"BOOL": True}, {"NULL": True}]}}}, None),
        (("x", 2), {"L": [{"S": "x"}, {"N": "2"}]}, ["x", 2]),
    ],
)
def test_given_a_python_value_then_its_attribute_value_and_back(python: object, stored: object, read_back: object):
    assert value(python) == stored
    assert python_of(value(python)) == (python if isinstance(python, dict) else read_back)


def test_given_a_moment_in_another_zone_then_it_is_stored_as_fixed_width_utc_text() -> None:
    paris = AT.astimezone(timezone(timedelta(hours=2)))

    assert value(paris) == value(AT)
    assert value(AT.replace(microsecond=0)) == {"S": "2024-05-08T14:30:00.000000+00:00"}


def test_given_a_type_with_no_attribute_value_then_a_type_error() -> None:
    with pytest.raises(TypeError, match="set"):
        value({1, 2})


def test_given_values_some_none_then_the_item_leaves_those_out() -> None:
    assert attributes(id="m1", replaced_by=None, total=0, active=False, at=AT) == {
        "id": {"S": "m1"},
        "total": {"N": "0"},
        "active": {"BOOL": False},
        "at": {"S": "2024-05-08T14:30:00.123456+00:00"},
    }


def test_given_named_values_then_expression_placeholders_keep_a_none() -> None:
    assert placeholders(pk="T#X", n=2, gone=None) == {":pk": {"S": "T#X"}, ":n": {"N": "2"}, ":gone": {"NULL": True}}


def test_given_an_item_then_each_reader_gives_its_type() -> None:
    item = attributes(name="Ana", n=3, latency=0.5, on=True, blob=b"z", at=AT)

    assert (text(item, "name"), integer(item, "n"), real(item, "latency"), flag(item, "on")) == ("Ana", 3, 0.5, True)
    assert binary(item, "blob") == b"z"
    assert moment_of(item, "at") == AT
    assert (text_or_none(item, "name"), text_or_none(item, "gone")) == ("Ana", None)


@pytest.mark.parametrize("read", [text, integer, real, flag, binary, moment_of])
def test_given_an_absent_attribute_then_a_reader_of_a_required_one_raises_key_error(read: object) -> None:
    with pytest.raises(KeyError):
        read(attributes(id="m1"), "absent")  # type: ignore[operator]
