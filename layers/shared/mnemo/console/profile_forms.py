"""What the Profiles page reads from its forms and shows of a profile, kept apart from the routes.

The settings form is turned into the body POST /v2/profiles/settings/ takes and checked by the API's own body model
(`ProfileSettingsBody`: the bounds of free-form JSON, `min_memories`' range, the instructions' length), then by the
service (the schema's rules: `schema_problem`), so the console refuses what the API refuses, with the API's words.
The only check of its own is that the schema's text is JSON, which the API's body parser asks first. A profile's
properties are shown with the memories each was drawn from, read in one batch."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError as BodyError

from mnemo.api.platform.profiles import ProfileSettingsBody
from mnemo.domain.memory import MemoryRecord
from mnemo.domain.profiles import Profile, ProfileSettings
from mnemo.errors import ValidationError

WHOLE_NUMBER = re.compile(r"[0-9]{1,9}")


def settings_changes(form: Mapping[str, str]) -> dict[str, Any]:
    """The settings form as the API's checked body: every setting sent (an empty field is null: the default)."""
    try:
        body = ProfileSettingsBody.model_validate(settings_body(form))
    except BodyError as exc:
        first = exc.errors()[0]
        raise ValidationError(f"{'.'.join(str(part) for part in first['loc'])}: {first['msg']}") from None
    return body.changes()


def settings_body(form: Mapping[str, str]) -> dict[str, Any]:
    """The settings form as the API's body, unchecked."""
    instructions = form.get("custom_instructions", "").strip()
    user = {
        "schema": parsed_schema(form.get("schema", "")),
        "custom_instructions": instructions or None,
        "min_memories": _min_memories(form.get("min_memories", "").strip()),
    }
    return {"enabled": form.get("enabled") == "on", "entities": {"user": user}}


def parsed_schema(text: str) -> Any:
    """The schema the text holds (None when empty: the default schema); any JSON value, for the service to judge."""
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ValidationError(f"The schema is not valid JSON: {_reason(error)}") from None


def _reason(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} (line {error.lineno}, column {error.colno})."
    return "it is nested too deeply." if isinstance(error, RecursionError) else "it cannot be read."


def _min_memories(raw: str) -> int | str | None:
    """A whole number as a number; anything else as typed, which the service refuses with its own message."""
    if not raw:
        return None
    return int(raw) if WHOLE_NUMBER.fullmatch(raw) else raw


def schema_text(settings: ProfileSettings) -> str:
    """The project's own schema as the editor shows it (empty: the default applies)."""
    return pretty(settings.schema) if settings.schema is not None else ""


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Source:
    """A memory a property was drawn from: its id, and its text while it is stored (None once it is gone)."""

    id: str
    text: str | None


@dataclass(frozen=True, slots=True)
class Property:
    name: str
    value: str
    sources: tuple[Source, ...]


def shown_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ", ".join(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def properties(profile: Profile, read: Callable[[Sequence[str]], Mapping[str, MemoryRecord]]) -> list[Property]:
    """Each property of the profile with its value and its sources; `read` gives the stored memories of some ids."""
    wanted = sorted({memory_id for ids in profile.sources.values() for memory_id in ids})
    found = read(wanted) if wanted else {}
    return [
        Property(name, shown_value(value), _sources(profile.sources.get(name, ()), found))
        for name, value in profile.profile.items()
    ]


def _sources(ids: Iterable[str], found: Mapping[str, MemoryRecord]) -> tuple[Source, ...]:
    return tuple(Source(memory_id, found[memory_id].text if memory_id in found else None) for memory_id in ids)
