"""Self-introductions: "I'm Alice.", "My name is Alice Smith", "Call me Al" — the user's name, which the
extractor keeps ("Name is Alice") though the sentence has a single content word."""

from __future__ import annotations

import re

# Capitalized words after "I'm" that are no name ("I'm Fine.", "I'm Back!").
NOT_NAMES = frozenset(
    """fine good great okay ok alright back home here there sorry done ready tired busy excited happy sad sure
    new glad hungry sick well better worse free available late early vegan vegetarian single married""".split()
)
_NAME = r"(?P<name>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})"
_INTRO = re.compile(
    r"^(?:(?:hi|hello|hey|hiya|ciao|hola|hallo|bonjour|salut|yo)(?:\s+there)?[\s,!.]*)?"
    rf"(?:i'm|i’m|im|i am|my name is|my name's|my name’s|name's|name’s|call me|this is)\s+{_NAME}"
    r"(?:\s*[,.!]\s*(?:nice to meet you|nice meeting you)?)?[\W_]*$",
    re.IGNORECASE,
)


def introduced_name(sentence: str) -> str | None:
    """The name a sentence introduces its speaker by, or None (a sentence that says more is no introduction:
    "I'm Alice and I live in Porto" is a statement, kept as such)."""
    match = _INTRO.match(sentence.strip())
    if match is None:
        return None
    name = match.group("name")
    if not name[0].isupper() or name.split()[0].lower() in NOT_NAMES:
        return None
    return name


def introduction(name: str) -> str:
    """What the memory says of a user who introduced themselves."""
    return f"Name is {name}"
