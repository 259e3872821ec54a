"""The English words that tell whether a fact an LLM extracted is in the conversation: the names a fact holds
(its capitalised words past the first, but the months and weekdays a resolved date brings, and "I"), the words
by which a user says yes to what an assistant said, and the name a fact says the user goes by, which only a message
introducing its speaker by it supports. The words and patterns are data (data/grounding.toml; the introductions, as
the extractor reads them, data/introductions.toml)."""

from __future__ import annotations

import re

from mnemo.language.en.extraction.dates import MONTHS, WEEKDAYS
from mnemo.language.en.extraction.wording import tokens
from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import word_set

CONFIRMATIONS = word_set("grounding.toml", "confirmations")
DENIALS = word_set("grounding.toml", "denials")
_NAME = pattern("grounding.toml", "name")
_CLAIMED_NAME = pattern("grounding.toml", "claimed_name")
_INTRODUCES = pattern("introductions.toml", "introduces")
_NOT_NAMES = frozenset(MONTHS) | frozenset(WEEKDAYS) | word_set("grounding.toml", "not_names")


def names(fact: str) -> list[str]:
    """The names a fact holds, lower case: its capitalised words past the first, but months, weekdays and "I"."""
    found = [m.group().lower() for m in _NAME.finditer(fact) if m.start() > 0]
    return [tokens(name)[0] for name in found if tokens(name) and name not in _NOT_NAMES]


def confirms(reply: str) -> bool:
    """Whether a reply's first two words say yes and none says no."""
    opening = set(tokens(reply)[:2])
    return bool(opening & CONFIRMATIONS) and not opening & DENIALS


def claimed_name(fact: str) -> str | None:
    """The name a fact says the user goes by ("Is called Dana", "The user's name is Dana" -> "Dana"), or None."""
    found = _CLAIMED_NAME.match(fact.strip())
    return found.group("name") if found else None


def introduces(message: str, name: str) -> bool:
    """Whether a message introduces its speaker by `name` ("hi im dana", "Dana here", "my name is Dana")."""
    said = _INTRODUCES.pattern.replace("NAME", re.escape(name))
    return re.search(said, message, _INTRODUCES.flags) is not None
