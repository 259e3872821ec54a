"""Reading an LLM's JSON reply: models wrap the object they were asked for in code fences or in words, so the
reply is read leniently once here, for every caller that asks an LLM for JSON (the add's extraction and decision,
profiles, reflection, exports).

A caller that knows the shape it wants names it as a `Reply`: the strict schema sent to a provider that can
constrain its output to one (ports.llm.JsonSchema), and the schema every reply is checked against, whatever the
provider did (as lenient as the caller's reading: a reply that fits it can be read). A reply that is cut off, is no
JSON object or does not fit is asked for once more, then is a `provider_bad_response` that says which.

One cut-off reply is read rather than asked for again: a model caught in a loop, writing the same item of its list
over and over until its output limit. Asked again at a low temperature it loops again, spending as much once more;
what it wrote before the loop is its answer, and the repeated item counts once."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mnemo.errors import ProviderError
from mnemo.ports.llm import LLM, ChatMessage, JsonSchema

logger = logging.getLogger(__name__)

ATTEMPTS = 2  # a reply that is cut off or not a JSON object is asked for once more
LOOP = 3  # a cut-off reply whose list ends with the same item this many times in a row looped
CUT_OFF = "The LLM's reply was cut off at its output limit (max_tokens)."
NOT_JSON = "The LLM did not reply with a JSON object."

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class UnreadableReplyError(ProviderError):
    """Asked twice, the LLM gave no answer to read: `truncated` when the last was cut off at its output limit, else
    it was no JSON object or did not fit the shape asked for."""

    def __init__(self, message: str, *, truncated: bool = False) -> None:
        super().__init__(message, code="provider_bad_response")
        self.truncated = truncated


@dataclass(frozen=True, slots=True)
class Reply:
    """The JSON object a caller asks for: `asked`, the strict schema sent to a provider that can constrain its
    output; `accepted`, the schema every reply must fit to be read; `listing`, its key that must be a list when
    present (said by name when it is not)."""

    asked: JsonSchema
    accepted: Mapping[str, Any] = field(hash=False)
    listing: str | None = None


def json_reply(llm: LLM, messages: list[ChatMessage], reply: Reply | str | None = None) -> dict[str, Any]:
    """The JSON object the LLM answers to `messages`, asked once more when its reply is cut off or is not that; then
    a ProviderError (`provider_bad_response`) that says which. `reply`: the shape asked for (a `Reply`), or only the
    key that must be a list when present."""
    shape = reply if isinstance(reply, Reply) else None
    listing = shape.listing if shape is not None else reply if isinstance(reply, str) else None
    problem = UnreadableReplyError(NOT_JSON)
    for _ in range(ATTEMPTS):
        completion = llm.complete(messages, json_mode=True, schema=shape.asked if shape is not None else None)
        if completion.truncated:
            before_the_loop = _read_before_its_loop(completion.text, listing, shape) if listing is not None else None
            if before_the_loop is not None:
                return before_the_loop
            problem = UnreadableReplyError(CUT_OFF, truncated=True)
            continue
        try:
            return _checked(parse_json_reply(completion.text), listing, shape)
        except ProviderError as error:
            problem = UnreadableReplyError(error.message)
    raise problem


def _read_before_its_loop(reply: str, listing: str, shape: Reply | None) -> dict[str, Any] | None:
    """A cut-off reply that looped, read up to its loop (`looped_items`), when that fits the shape; else None."""
    looped = looped_items(reply, listing)
    if looped is None:
        return None
    try:
        read = _checked({listing: looped}, listing, shape)
    except ProviderError:
        return None
    logger.warning("the LLM's reply looped to its output limit: read up to the loop (%d items)", len(looped))
    return read


def looped_items(reply: str, listing: str) -> list[Any] | None:
    """The items of the reply's `listing` up to its loop, each once, when the reply was cut off while repeating
    itself (its last LOOP complete items are the same, by their "text" when they have one); None when it did not
    loop."""
    opening = re.search(rf'"{re.escape(listing)}"\s*:\s*\[', reply)
    if opening is None:
        return None
    decoder = json.JSONDecoder()
    items: list[Any] = []
    position = opening.end()
    while True:
        while position < len(reply) and reply[position] in _SEPARATORS:
            position += 1
        try:
            item, position = decoder.raw_decode(reply, position)
        except json.JSONDecodeError:
            break
        items.append(item)
    keys = [_loop_key(item) for item in items]
    if len(keys) < LOOP or len(set(keys[-LOOP:])) != 1:
        return None
    loop = len(keys) - 1
    while loop > 0 and keys[loop - 1] == keys[-1]:
        loop -= 1  # where the repeats at the end begin
    kept: dict[str, Any] = {}
    for key, item in zip(keys[: loop + 1], items[: loop + 1], strict=True):
        kept.setdefault(key, item)
    return list(kept.values())


_SEPARATORS = frozenset(" \t\r\n,")


def _loop_key(item: Any) -> str:
    """What makes two items of a list the same for a loop: a dict's "text" when it has one, else the whole item."""
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        return str(item["text"]).strip().lower()
    return json.dumps(item, sort_keys=True)


def _checked(parsed: dict[str, Any], listing: str | None, shape: Reply | None) -> dict[str, Any]:
    """The reply, when its `listing` is a list and it fits the shape's accepted schema; else a ProviderError."""
    if listing is not None and not isinstance(parsed.get(listing, []), list):
        raise ProviderError(f"The LLM's '{listing}' is not a list.", code="provider_bad_response")
    if shape is not None:
        from jsonschema import Draft202012Validator  # loaded by the first add that asks an LLM, not at import

        error = next(iter(Draft202012Validator(shape.accepted).iter_errors(parsed)), None)
        if error is not None:
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path) or "the reply"
            message = f"The LLM's reply does not fit the schema asked for, at {where.lstrip('.')}: {error.message}"
            raise ProviderError(message[:500], code="provider_bad_response")
    return parsed


def parse_json_reply(reply: str) -> dict[str, Any]:
    """Parse an LLM's JSON reply, tolerating code fences and text around the object."""
    text = _FENCE.sub("", reply.strip())
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        try:
            parsed = json.loads(text[start : end + 1]) if start != -1 < end else None
        except json.JSONDecodeError:
            parsed = None
    if not isinstance(parsed, dict):
        raise ProviderError(NOT_JSON, code="provider_bad_response")
    return parsed
