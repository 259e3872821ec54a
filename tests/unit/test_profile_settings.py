"""What makes a profile schema (mnemo.services.platform.profiles.schema_problem) and the job request hash."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo.domain.profiles import default_user_schema, request_hash
from mnemo.services.platform.profiles import schema_problem


def described(**properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def test_the_default_schema_is_a_profile_schema() -> None:
    assert schema_problem(default_user_schema()) is None


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ("not an object", "must be a JSON Schema object"),
        ({"type": "object", "properties": {"age": {"type": "integer"}}}, "'age' has no description"),
        ({"type": "object", "properties": {"age": {"type": "integer", "description": "  "}}}, "'age'"),
        (described(a={"type": "nonsense", "description": "x"}), "Invalid schema"),
        ({"type": "array", "items": {"type": "string"}}, 'of type "object"'),
        ({"type": "object", "properties": {}}, "with properties"),
        (described(**{f"p{i}": {"type": "string", "description": "x"} for i in range(101)}), "at most 100"),
        (described(a={"type": "string", "description": "x" * 70_000}), "larger than"),
    ],
)
def test_what_is_not_a_profile_schema(schema: Any, says: str) -> None:
    problem = schema_problem(schema)
    assert problem is not None and says in problem


def test_a_nested_schema_needs_descriptions_only_at_the_top() -> None:
    address = {"type": "object", "description": "Where.", "properties": {"city": {"type": "string"}}}
    assert schema_problem(described(address=address)) is None


def test_the_request_hash_ignores_key_order() -> None:
    assert request_hash({"a": 1, "b": [1, 2]}) == request_hash({"b": [1, 2], "a": 1})
    assert request_hash({"a": 1}) != request_hash({"a": 2})
