"""A project's profile settings and what they may hold: the schema (a JSON Schema object whose every property has a
description), the custom instructions, and `min_memories` (fewer memories than this: `insufficient_data`).

The wire shape (POST /v2/profiles/settings/): `{enabled?, entities: {user: {schema?, custom_instructions?,
min_memories?}}}`; what is not sent is kept, an explicit null clears (back to the default). Anything else, a flat
shape included, is a 400 "Unsupported settings"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo.domain.json_shape import json_problem
from mnemo.domain.profiles import DEFAULT_MIN_MEMORIES, ENTITY_USER, MAX_MIN_MEMORIES, ProfileSettings
from mnemo.errors import ValidationError
from mnemo.services.commands import json_size

MAX_INSTRUCTIONS = 20_000  # characters of custom instructions
MAX_SCHEMA_BYTES = 64_000  # of a profile schema, as JSON
MAX_SCHEMA_PROPERTIES = 100  # top-level properties of a profile schema
UNSUPPORTED = "Unsupported settings"
USER_SETTINGS = ("schema", "custom_instructions", "min_memories")


def schema_problem(schema: Any) -> str | None:
    """Why `schema` cannot be a profile schema (a JSON Schema object whose every property has a description), or
    None."""
    if not isinstance(schema, Mapping):
        return "The schema must be a JSON Schema object."
    problem = _shape_problem(schema)
    if problem is not None:
        return problem
    properties = schema.get("properties")
    if schema.get("type", "object") != "object" or not isinstance(properties, Mapping) or not properties:
        return 'The schema must be of type "object", with properties.'
    if len(properties) > MAX_SCHEMA_PROPERTIES:
        return f"The schema has {len(properties):,} properties; at most {MAX_SCHEMA_PROPERTIES}."
    for name, prop in properties.items():
        description = prop.get("description") if isinstance(prop, Mapping) else None
        if not isinstance(description, str) or not description.strip():
            return f"The schema property {name!r} has no description: every property needs one."
    return None


def _shape_problem(schema: Mapping[str, Any]) -> str | None:
    """The size, the bounds of free-form JSON, and what the JSON Schema validator says of it."""
    if json_size(schema) > MAX_SCHEMA_BYTES:
        return f"The schema is larger than {MAX_SCHEMA_BYTES:,} bytes."
    shape = json_problem(schema, "the schema")
    if shape is not None:
        return f"Invalid schema: {shape}."
    from jsonschema import Draft202012Validator  # on the first schema checked: most processes never check one
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        return f"Invalid schema: {error.message}"
    return None


def updated_settings(current: ProfileSettings, body: Mapping[str, Any]) -> ProfileSettings:
    """`current` after a POST of `body`, checked (ValidationError: what is wrong)."""
    unknown = sorted(set(body) - {"enabled", "entities"})
    if unknown:
        raise ValidationError(
            f"{UNSUPPORTED}: {', '.join(unknown)} (schema, custom_instructions and min_memories go under "
            "entities.user)."
        )
    enabled = body.get("enabled", current.enabled)
    if not isinstance(enabled, bool):
        raise ValidationError("enabled must be true or false.")
    schema, instructions, minimum = current.schema, current.custom_instructions, current.min_memories
    if "entities" in body:
        user = _user_settings(body["entities"])
        if "schema" in user:
            schema = _schema(user["schema"])
        if "custom_instructions" in user:
            instructions = _instructions(user["custom_instructions"])
        if "min_memories" in user:
            minimum = _min_memories(user["min_memories"])
    return ProfileSettings(current.project_id, enabled, schema, instructions, minimum)


def _user_settings(entities: Any) -> Mapping[str, Any]:
    if not isinstance(entities, Mapping) or set(entities) - {ENTITY_USER}:
        raise ValidationError(f"{UNSUPPORTED}: entities holds only user.")
    user = entities.get(ENTITY_USER, {})
    if not isinstance(user, Mapping) or set(user) - set(USER_SETTINGS):
        raise ValidationError(f"{UNSUPPORTED}: entities.user holds only {', '.join(USER_SETTINGS)}.")
    return user


def _schema(schema: Any) -> dict[str, Any] | None:
    if schema is None:
        return None
    problem = schema_problem(schema)
    if problem is not None:
        raise ValidationError(problem)
    return dict(schema)


def _instructions(instructions: Any) -> str | None:
    if instructions is not None and not isinstance(instructions, str):
        raise ValidationError("custom_instructions must be a string or null.")
    if instructions is not None and len(instructions) > MAX_INSTRUCTIONS:
        raise ValidationError(f"custom_instructions is longer than {MAX_INSTRUCTIONS:,} characters.")
    return instructions


def _min_memories(value: Any) -> int:
    if value is None:
        return DEFAULT_MIN_MEMORIES
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_MIN_MEMORIES:
        raise ValidationError(f"min_memories must be an integer from 1 to {MAX_MIN_MEMORIES:,} (or null: 1).")
    return value
