"""An export shaped by an LLM, when the request gives `export_instructions` and an LLM is configured: the LLM fills
the export's JSON schema from the memories the filters selected, following the instructions, and its answer is
checked against the schema (JSON Schema draft 2020-12). A reply that is not a JSON object, or an object the schema
rejects, is sent back once with the error; a second failure is a 502 that says why (nothing is stored). At most
MAX_MEMORIES memories (the newest) are shown to it, each with the day it was stored."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mnemo.domain.memory import MemoryRecord
from mnemo.errors import ProviderError, ValidationError
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services.llm_json import parse_json_reply

if TYPE_CHECKING:  # jsonschema is imported on the first export an LLM shapes: few processes ever make one
    from jsonschema import Draft202012Validator

MAX_MEMORIES = 500
ATTEMPTS = 2  # the first answer and one retry with its error
_MAX_ERROR = 300

PROMPT = """You export what is remembered about someone as one JSON object that follows this JSON schema:
{schema}

Instructions for this export:
{instructions}

The memories (newest first, each with the day it was stored):
{memories}

Use only what the memories say; leave out a property they say nothing about (unless the schema requires it).
Answer with the JSON object only."""

RETRY = "That answer cannot be used: {error}. Answer again with one JSON object that follows the schema."


def export_with_llm(
    llm: LLM, schema: Mapping[str, Any], instructions: str, records: Sequence[MemoryRecord]
) -> dict[str, Any]:
    """The export object the LLM made and the schema accepts."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(dict(schema))
    except SchemaError as error:
        raise ValidationError(f"The schema is not valid JSON Schema: {error.message[:_MAX_ERROR]}") from None
    validator = Draft202012Validator(dict(schema))
    messages: list[ChatMessage] = [{"role": "user", "content": _prompt(schema, instructions, records)}]
    problem = ""
    for attempt in range(ATTEMPTS):
        reply = llm.complete(messages, json_mode=True).text
        try:
            return _read(reply, validator)
        except ValueError as unusable:
            problem = str(unusable)
            if attempt + 1 < ATTEMPTS:
                retry = RETRY.format(error=problem)
                messages = [*messages, {"role": "assistant", "content": reply}, {"role": "user", "content": retry}]
    raise ProviderError(f"The LLM's export was rejected twice: {problem}", code="provider_bad_response")


def _prompt(schema: Mapping[str, Any], instructions: str, records: Sequence[MemoryRecord]) -> str:
    newest = sorted(records, key=lambda r: r.created_at, reverse=True)[:MAX_MEMORIES]
    listing = "\n".join(
        f"- [{r.created_at.date().isoformat()}] {json.dumps(r.text, ensure_ascii=False)}" for r in newest
    )
    return PROMPT.format(
        schema=json.dumps(schema, ensure_ascii=False, indent=2),
        instructions=instructions.strip(),
        memories=listing or "(none)",
    )


def _read(reply: str, validator: Draft202012Validator) -> dict[str, Any]:
    from jsonschema.exceptions import best_match
    from referencing.exceptions import Unresolvable

    try:
        parsed = parse_json_reply(reply)
    except ProviderError:  # not the provider's failure: what it said is not JSON
        raise ValueError("the reply is not a JSON object") from None
    try:
        invalid = best_match(validator.iter_errors(parsed))
    except Unresolvable as error:
        raise ValidationError(f"The schema cannot be used: {str(error)[:_MAX_ERROR]}") from None
    if invalid is not None:
        raise ValueError(f"it does not follow the schema: at {invalid.json_path}, {invalid.message[:_MAX_ERROR]}")
    return parsed
