"""A conversation as an add takes it, read from JSON: the message parsing both the platform's request bodies and
its imports use (a list of {role, content, name?}, one message object, or a user's text)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo.errors import ValidationError
from mnemo.services.commands import Message

MAX_ITEM_MESSAGES = 1_000  # messages of one conversation (as of one add)


def messages_of(raw: Any) -> list[Message]:
    """A conversation as an add takes it: a list of {role, content, name?}, one message object, or a string (a
    user message). Content is text: multimodal content is refused."""
    items: Any = [{"role": "user", "content": raw}] if isinstance(raw, str) else [raw] if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        raise ValidationError("messages must be a list of {role, content} objects, one such object, or a string.")
    if len(items) > MAX_ITEM_MESSAGES:
        raise ValidationError(f"A conversation has at most {MAX_ITEM_MESSAGES:,} messages; this one {len(items):,}.")
    out: list[Message] = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("role"), str):
            raise ValidationError(f"messages[{i}] must be an object with a role and a content.")
        content = item.get("content")
        if not isinstance(content, str):
            raise ValidationError(
                f"messages[{i}].content must be text: multimodal content is not supported by this server."
            )
        name = item.get("name")
        out.append(Message(item["role"], content, name if isinstance(name, str) else None))
    if not out:
        raise ValidationError("messages must not be empty.")
    return out
