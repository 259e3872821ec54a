"""Reading an LLM's JSON reply: models wrap the object they were asked for in code fences or in words, so the
reply is read leniently once here, for every caller that asks an LLM for JSON (the add's extraction and decision,
profiles, reflection, exports)."""

from __future__ import annotations

import json
import re
from typing import Any

from mnemo.errors import ProviderError

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


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
