"""Ids a caller sends can make a DynamoDB key longer than DynamoDB accepts (2048 bytes for a partition key,
1024 for a sort key): a read by such a key finds nothing, without asking DynamoDB (which would refuse it)."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo.adapters.dynamodb.operations import Operations, key_fits


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
