"""Reading an LLM's JSON reply: models wrap the object they were asked for in code fences or in words, so the
reply is read leniently once here, for every caller that asks an LLM for JSON (the add's extraction and decision,
profiles, reflection, exports)."""

from __future__ import annotations

import json
import re
from typing import Any

from mnemo.errors import ProviderError
from mnemo.ports.llm import LLM, ChatMessage

ATTEMPTS = 2  # a reply that is cut off or not a JSON object is asked for once more
CUT_OFF = "The LLM's reply was cut off at its output limit (max_tokens)."

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def json_reply(llm: LLM, messages: list[ChatMessage], listing: str | None = None) -> dict[str, Any]:
    """The JSON object the LLM answers to `messages` (whose `listing` key, when named, is a list if present), asked
    once more when its reply is cut off or is not that; then a ProviderError (`provider_bad_response`) that says
    which."""
    problem = ProviderError("The LLM did not reply with a JSON object.", code="provider_bad_response")
    for _ in range(ATTEMPTS):
        completion = llm.complete(messages, json_mode=True)
        if completion.truncated:
            problem = ProviderError(CUT_OFF, code="provider_bad_response")
            continue
        try:
            reply = parse_json_reply(completion.text)
        except ProviderError as error:
            problem = error
            continue
        if listing is None or isinstance(reply.get(listing, []), list):
            return reply
        problem = ProviderError(f"The LLM's '{listing}' is not a list.", code="provider_bad_response")
    raise problem


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
        raise ProviderError("The LLM did not reply with a JSON object.", code="provider_bad_response")
    return parsed
