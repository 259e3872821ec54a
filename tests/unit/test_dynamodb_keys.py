"""Ids a caller sends can make a DynamoDB key longer than DynamoDB accepts (2048 bytes for a partition key,
1024 for a sort key): a read by such a key finds nothing, without asking DynamoDB (which would refuse it)."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo.adapters.dynamodb.operations import MAX_ITEM_BYTES, Operations, fitting, item_size, key_fits
from mnemo.errors import PayloadTooLargeError


class NoCalls:
    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"DynamoDB was asked: {name}")


def key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


@pytest.mark.parametrize(
    ("pk", "sk", "fits"),
    [
        ("T#ORG#" + "o" * 2042, "ORG", True),
        ("T#ORG#" + "o" * 2043, "ORG", False),
        ("T#PROJ#p", "EVENTID#" + "e" * 1016, True),
        ("T#PROJ#p", "EVENTID#" + "e" * 1017, False),
        ("T#EMAIL#" + "é" * 1020, "EMAIL", True),  # bytes, not characters: é is two
        ("T#EMAIL#" + "é" * 1021, "EMAIL", False),
    ],
)
def test_a_key_fits_when_dynamodb_would_accept_it(pk: str, sk: str, fits: bool) -> None:
    assert key_fits(key(pk, sk)) is fits


def test_a_read_by_a_key_too_long_finds_nothing_without_a_call() -> None:
    operations = Operations(NoCalls(), "table")
    assert operations.get(key("T#PROJ#p", "EVENTID#" + "e" * 3000)) is None


def test_item_size_counts_names_and_utf8_values_as_dynamodb_does() -> None:
    item: dict[str, dict[str, Any]] = {
        "pk": {"S": "é"},
        "n": {"N": "12345"},
        "b": {"B": b"\x00" * 10},
        "ok": {"BOOL": True},
    }
    assert item_size(item) == (2 + 2) + (1 + 4) + (1 + 10) + (2 + 1)
    nested = {"m": {"M": {"k": {"S": "v"}, "l": {"L": [{"S": "ab"}, {"NULL": True}]}}}}
    assert item_size(nested) == 1 + 3 + (1 + 1 + 1) + (1 + 1 + 3 + (1 + 2) + (1 + 1))


def test_an_item_over_400_kb_is_a_413_before_anything_is_written() -> None:
    fits = {"pk": {"S": "p"}, "text": {"S": "x" * (MAX_ITEM_BYTES - 7)}}
    assert item_size(fits) == MAX_ITEM_BYTES and fitting(fits) is fits
    too_large = {"pk": {"S": "p"}, "text": {"S": "é" * (MAX_ITEM_BYTES // 2)}}
    with pytest.raises(PayloadTooLargeError, match="at most 409,600"):
        Operations(NoCalls(), "t").put(too_large)
    with pytest.raises(PayloadTooLargeError):
        Operations(NoCalls(), "t").batch_write([{"PutRequest": {"Item": too_large}}])
