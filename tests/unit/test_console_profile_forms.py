"""The Profiles page's forms and what it shows of a profile: the settings form becomes the API's body, checked by
the API's own body model and then by the service with the API's words; a schema that is not JSON says where; a
profile's properties come with the memories behind them, a gone memory by its id."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import pytest

from mnemo.console.profile_forms import (
    Source,
    parsed_schema,
    properties,
    schema_text,
    settings_changes,
    shown_value,
)
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.domain.profiles import Profile, ProfileSettings, ProfileStatus
from mnemo.errors import ValidationError
from mnemo.services.platform.profiles.settings import schema_problem, updated_settings

SCHEMA = {"type": "object", "properties": {"city": {"type": "string", "description": "Where they live."}}}


def _form(**fields: str) -> dict[str, str]:
    return {"schema": "", "custom_instructions": "", "min_memories": "", **fields}


def test_every_setting_of_the_form_is_sent_and_an_empty_one_is_null() -> None:
    changes = settings_changes(_form(enabled="on", schema=json.dumps(SCHEMA), custom_instructions=" Be brief. "))
    assert changes == {
        "enabled": True,
        "entities": {"user": {"schema": SCHEMA, "custom_instructions": "Be brief.", "min_memories": None}},
    }
    assert settings_changes(_form(min_memories="7")) == {
        "enabled": False,
        "entities": {"user": {"schema": None, "custom_instructions": None, "min_memories": 7}},
    }


def test_the_service_takes_the_forms_changes_as_it_takes_the_apis() -> None:
    changes = settings_changes(_form(enabled="on", schema=json.dumps(SCHEMA), min_memories="3"))
    updated = updated_settings(ProfileSettings("p"), changes)
    assert updated == ProfileSettings("p", True, SCHEMA, None, 3)


def test_a_schema_the_service_refuses_gets_the_services_words() -> None:
    undescribed = {"type": "object", "properties": {"city": {"type": "string"}}}
    changes = settings_changes(_form(schema=json.dumps(undescribed)))
    with pytest.raises(ValidationError) as refused:
        updated_settings(ProfileSettings("p"), changes)
    assert refused.value.message == schema_problem(undescribed)


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("min_memories", "0", "entities.user.min_memories: Input should be greater than or equal to 1"),
        ("min_memories", "1001", "entities.user.min_memories: Input should be less than or equal to 1000"),
        ("min_memories", "two", "entities.user.min_memories: Input should be a valid integer"),
        ("schema", "[1, 2]", "entities.user.schema: Input should be a valid dictionary"),
    ],
)
def test_a_value_the_apis_body_model_refuses_is_refused_with_its_words(field: str, value: str, said: str) -> None:
    with pytest.raises(ValidationError) as refused:
        settings_changes(_form(**{field: value}))
    assert refused.value.message == said


def test_a_schema_that_is_not_json_says_where() -> None:
    with pytest.raises(ValidationError) as refused:
        parsed_schema('{"type": "object",')
    assert refused.value.message.startswith("The schema is not valid JSON: ")
    assert "line 1, column 19" in refused.value.message


def test_a_schema_nested_past_the_parsers_depth_is_refused() -> None:
    with pytest.raises(ValidationError) as refused:
        parsed_schema("[" * 100_000)
    assert refused.value.message.startswith("The schema is not valid JSON")


def test_the_editor_shows_the_projects_own_schema_and_nothing_for_the_default() -> None:
    assert schema_text(ProfileSettings("p")) == ""
    assert json.loads(schema_text(ProfileSettings("p", schema=SCHEMA))) == SCHEMA


def _record(memory_id: str, text: str) -> MemoryRecord:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    return MemoryRecord(
        id=memory_id, text=text, hash="h", scope=Scope(user_id="ana"), created_at=moment, updated_at=moment
    )


def test_each_property_comes_with_the_memories_behind_it_read_in_one_batch() -> None:
    profile = Profile(
        "p",
        "user",
        "ana",
        ProfileStatus.SUCCEEDED,
        {"city": "Lisbon", "hobbies": ["chess", "<b>go</b>"]},
        {"city": ["m1"], "hobbies": ["m2", "m3"]},
    )
    asked: list[Sequence[str]] = []

    def read(ids: Sequence[str]) -> Mapping[str, MemoryRecord]:
        asked.append(ids)
        return {"m1": _record("m1", "I live in Lisbon"), "m2": _record("m2", "I play chess")}

    shown = properties(profile, read)
    assert asked == [["m1", "m2", "m3"]]
    assert [(p.name, p.value) for p in shown] == [("city", "Lisbon"), ("hobbies", "chess, <b>go</b>")]
    assert shown[0].sources == (Source("m1", "I live in Lisbon"),)
    assert shown[1].sources == (Source("m2", "I play chess"), Source("m3", None))


def test_a_profile_without_sources_reads_nothing() -> None:
    def read(ids: Sequence[str]) -> Mapping[str, MemoryRecord]:
        raise AssertionError("nothing to read")

    profile = Profile("p", "user", "ana", ProfileStatus.PENDING)
    assert properties(profile, read) == []


@pytest.mark.parametrize(
    ("value", "shown"),
    [("Lisbon", "Lisbon"), (["a", "b"], "a, b"), (34, "34"), (True, "true"), ({"k": [1]}, '{"k": [1]}')],
)
def test_a_value_is_shown_as_text(value: object, shown: str) -> None:
    assert shown_value(value) == shown
