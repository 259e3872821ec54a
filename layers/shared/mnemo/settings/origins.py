"""Browser origins as CORS compares them, read from the environment."""

from __future__ import annotations

import json
import re
from typing import Any

_ORIGIN = re.compile(r"^https?://[^/?#\s*]+$")


def browser_origin(value: str) -> str:
    """A web origin as browsers send it in `Origin` (`scheme://host[:port]`; a trailing slash is dropped)."""
    origin = value.strip().rstrip("/").lower()  # browsers send the scheme and host in lower case
    if not _ORIGIN.match(origin):
        raise ValueError(
            f"{value!r} is not a web origin: write scheme://host[:port], e.g. https://dashboard.example.com "
            "(no path, no wildcard: list each origin)"
        )
    return origin


def origin_list(value: Any) -> Any:
    """An origin list from the environment: a JSON list, or comma-separated; empty is the empty list."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        return json.loads(text)
    return [part for part in (p.strip() for p in text.split(",")) if part]
