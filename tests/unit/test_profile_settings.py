"""What makes a profile schema (mnemo.services.platform.profiles.settings.schema_problem), the job request hash, and
a profile task as a queue message."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from mnemo.domain.profiles import ProfileTask, default_user_schema, request_hash
from mnemo.services.platform.profiles.settings import schema_problem


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


def test_a_profile_task_is_a_message_of_ids_that_reads_back_whole() -> None:
    claimed = datetime(2026, 11, 25, 9, 0, 0, 123456, tzinfo=UTC)
    for task in (ProfileTask("generate", "p1", "alice", claimed), ProfileTask("job", "p1", "j1")):
        message = json.loads(json.dumps(task.to_json()))
        assert message["kind"] == "platform.profile" and ProfileTask.from_json(message) == task
    for bad in ({"kind": "platform.add"}, {"kind": "platform.profile", "task": "rebuild", "project_id": "p"}, [1]):
        with pytest.raises(ValueError, match="profile task"):
            ProfileTask.from_json(bad)


def test_given_a_whole_number_written_with_a_fraction_then_min_memories_takes_it_and_refuses_the_rest():
    # JSON Schema's integer includes 5.0 (the fuzzer sends it); a string, a bool or 5.5 is still no count of memories.
    from pydantic import ValidationError as BodyError

    from mnemo.api.platform.profiles import ProfileSettingsBody

    def parsed(value: object) -> object:
        body = ProfileSettingsBody.model_validate({"entities": {"user": {"min_memories": value}}})
        assert body.entities is not None and body.entities.user is not None
        return body.entities.user.min_memories

    assert parsed(5.0) == 5
    assert parsed(7) == 7
    for refused in (5.5, "5", True):
        with pytest.raises(BodyError):
            parsed(refused)
