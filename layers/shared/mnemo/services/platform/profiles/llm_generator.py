"""The profile generator with an LLM: the LLM fills the schema from the memories, its answer checked against it.

The prompt (profile_prompts.py) gives the schema, the project's instructions and the user's newest `max_memories`
memories, numbered from 0 (newest first); the LLM answers `{"profile": {...}, "sources": {"<property>": [n, ...]}}`.
The numbers are mapped back to memory ids (a number that names no listed memory is dropped); a property the LLM
filled but cites no listed memory for is left out, so that every value is traceable. Empty values (null, "", [],
{}) count as not filled. The profile is then validated against the schema (JSON Schema draft 2020-12). A reply that
is not a JSON object, or a profile the schema rejects, is sent back once with the error; a second failure is a
`failed` draft with the error. A profile with nothing filled is `insufficient_data`. A provider failure
(ProviderError) propagates, for the job to retry."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match
from referencing.exceptions import Unresolvable

from mnemo.domain.memory import MemoryRecord
from mnemo.errors import ProviderError
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services.llm_json import parse_json_reply
from mnemo.services.platform.profiles import prompts as profile_prompts
from mnemo.services.platform.profiles.generation import ProfileDraft

DEFAULT_MAX_MEMORIES = 200
ATTEMPTS = 2  # the first answer and one retry with its error
_MAX_ERROR = 500  # characters of an error message kept (jsonschema's quote the whole offending value)


@dataclass(frozen=True, slots=True)
class _Answer:
    profile: dict[str, Any]
    sources: dict[str, list[str]]
    uncited: list[str]  # properties the LLM filled without citing a listed memory, left out


class _SchemaReferenceError(Exception):
    """The schema refers to something that cannot be resolved (a remote or missing `$ref`)."""


class _UnusableReplyError(Exception):
    """The LLM's reply cannot be used; the message says why (it goes back to the LLM, then into the draft)."""


class LlmProfileGenerator:
    def __init__(self, llm: LLM, max_memories: int = DEFAULT_MAX_MEMORIES, *, min_memories: int = 1) -> None:
        self._llm = llm
        self._max_memories = max_memories
        self._min_memories = max(min_memories, 1)

    def generate(
        self, schema: Mapping[str, Any], instructions: str | None, memories: Sequence[MemoryRecord]
    ) -> ProfileDraft:
        considered = [m for m in memories[: self._max_memories] if m.text.strip()]
        if len(considered) < self._min_memories:
            return ProfileDraft(
                "insufficient_data",
                reason=f"{len(considered)} memories; at least {self._min_memories} needed for a profile.",
            )
        try:
            Draft202012Validator.check_schema(dict(schema))
        except SchemaError as error:
            return ProfileDraft(
                "failed", reason=f"The profile schema is not valid JSON Schema: {_short(error.message)}"
            )
        validator = Draft202012Validator(dict(schema))
        messages: list[ChatMessage] = [{"role": "user", "content": _prompt(schema, instructions, considered)}]
        problem = ""
        for attempt in range(ATTEMPTS):
            reply = self._llm.complete(messages, json_mode=True).text
            try:
                answer = _read(reply, validator, considered)
            except _SchemaReferenceError as unresolvable:
                return ProfileDraft("failed", reason=f"The profile schema cannot be used: {unresolvable}")
            except _UnusableReplyError as unusable:
                problem = str(unusable)
                if attempt + 1 < ATTEMPTS:
                    retry = profile_prompts.RETRY.format(error=problem)
                    messages = [*messages, {"role": "assistant", "content": reply}, {"role": "user", "content": retry}]
                continue
            return _draft(answer, schema)
        return ProfileDraft("failed", reason=f"The LLM's profile was rejected twice: {problem}")


def _prompt(schema: Mapping[str, Any], instructions: str | None, memories: list[MemoryRecord]) -> str:
    listing = "\n".join(f"{i}: {json.dumps(m.text, ensure_ascii=False)}" for i, m in enumerate(memories))
    custom = (
        profile_prompts.CUSTOM_INSTRUCTIONS.format(instructions=instructions.strip())
        if instructions and instructions.strip()
        else ""
    )
    return profile_prompts.PROFILE_GENERATION.format(
        schema=json.dumps(schema, ensure_ascii=False, indent=2), custom_instructions=custom, memories=listing
    )


def _read(reply: str, validator: Draft202012Validator, memories: list[MemoryRecord]) -> _Answer:
    try:
        parsed = parse_json_reply(reply)
    except ProviderError as error:  # not the provider's failure: what it said is not JSON
        raise _UnusableReplyError("the reply is not a JSON object.") from error
    profile = parsed.get("profile")
    if not isinstance(profile, dict):
        raise _UnusableReplyError('the reply has no "profile" object.')
    filled = {str(k): v for k, v in profile.items() if not _empty(v)}
    cited = _sources(parsed.get("sources"), filled, memories)
    uncited = [name for name in filled if name not in cited]
    kept = {name: value for name, value in filled.items() if name in cited}
    try:
        invalid = best_match(validator.iter_errors(kept))
    except Unresolvable as error:
        raise _SchemaReferenceError(_short(str(error))) from error
    if invalid is not None:
        raise _UnusableReplyError(
            f"the profile does not follow the schema: at {invalid.json_path}, {_short(invalid.message)}"
        )
    return _Answer(kept, cited, uncited)


def _sources(raw: Any, filled: Mapping[str, Any], memories: list[MemoryRecord]) -> dict[str, list[str]]:
    """Each filled property's memory ids, from the numbers the LLM cited (numbers naming no memory dropped)."""
    if not isinstance(raw, dict):
        return {}
    sources: dict[str, list[str]] = {}
    for name in filled:
        numbers = raw.get(name)
        if not isinstance(numbers, list):
            numbers = [numbers]
        ids: list[str] = []
        for number in numbers:
            index = _index(number)
            if index is not None and index < len(memories) and memories[index].id not in ids:
                ids.append(memories[index].id)
        if ids:
            sources[name] = ids
    return sources


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | dict) and not value)


def _draft(answer: _Answer, schema: Mapping[str, Any]) -> ProfileDraft:
    left_out = f" Left out, citing no memory: {', '.join(answer.uncited)}." if answer.uncited else ""
    if not answer.profile:
        properties = schema.get("properties")
        names = ", ".join(str(k) for k in properties) if isinstance(properties, Mapping) else "none"
        return ProfileDraft(
            "insufficient_data", reason=f"The memories answer none of the schema's properties ({names}).{left_out}"
        )
    return ProfileDraft("succeeded", profile=answer.profile, sources=answer.sources, reason=left_out.strip() or None)


def _short(message: str) -> str:
    return message if len(message) <= _MAX_ERROR else message[: _MAX_ERROR - 1] + "…"
