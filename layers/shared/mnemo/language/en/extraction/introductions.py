"""Self-introductions: "I'm Alice.", "My name is Alice Smith", "Call me Al", "hi im ines", "hi!! rosa here" — the
user's name, which the extractor keeps ("Name is Alice") though the sentence has a single content word.

A name is capitalized ("I'm Alice"), or, after a greeting, may be written in lower case as people type in chats
("hi im ines" -> "Name is Ines"; "I'm tired" alone is no introduction). An introduction followed by a comma and more
("hi im ines, on my break at 2am") is the introduction, and the rest is a sentence of its own."""

from __future__ import annotations

import re

# Capitalized words after "I'm" that are no name ("I'm Fine.", "I'm Back!").
NOT_NAMES = frozenset(
    """fine good great okay ok alright back home here there sorry done ready tired busy excited happy sad sure
    new glad hungry sick well better worse free available late early vegan vegetarian single married starving
    stuck lost bored confused curious looking trying going working not so just still also really""".split()
)
_GREETING = r"(?P<greeting>(?:hi|hello|hey|hiya|ciao|hola|hallo|bonjour|salut|yo|heya|hii+|heyy+)(?:\s+there)?[\s,!.]*)"
_NAME = r"(?P<name>[^\W\d_][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})"
_SAYS = r"(?:i'm|i’m|im|i am|my name is|my name's|my name’s|name's|name’s|call me|this is)"
_INTRO = re.compile(
    rf"^{_GREETING}?(?:{_SAYS}\s+{_NAME}|(?P<here>[^\W\d_][\w'’-]*)\s+here)"
    r"(?P<end>(?:\s*[,.!]\s*(?:nice to meet you|nice meeting you)?)?[\W_]*$|\s*,\s+(?=\S))",
    re.IGNORECASE,
)


# What says more of the one introduced, in the same breath: "I'm Lucas, from Porto", "I'm Ana, a nurse".
_APPOSITION = re.compile(r"^(?:from|based in|living in|in|an?|the|\d+)\b", re.IGNORECASE)
_ONLY_GREETING = re.compile(rf"^{_GREETING}$", re.IGNORECASE)


def introduced_name(sentence: str, greeted: bool = False) -> str | None:
    """The name a sentence introduces its speaker by, or None (a sentence that says more is no introduction:
    "I'm Alice and I live in Porto" is a statement, kept as such). `greeted`: the sentence before it was a greeting
    ("hi!!" before "rosa here.")."""
    found = _introduction(sentence, greeted)
    return found[0] if found else None


def introduction_end(sentence: str, greeted: bool = False) -> int | None:
    """Where the introduction a sentence opens with ends, when more follows it after a comma ("hi im ines, on my
    break…" -> the offset of "on"); None otherwise."""
    found = _introduction(sentence, greeted)
    if found is None or found[1] >= len(sentence.strip()) or _APPOSITION.match(sentence.strip()[found[1] :]):
        return None
    return found[1]


def introduction_of(sentence: str, greeted: bool = False) -> str | None:
    """The memory of a sentence that introduces its speaker ("I'm Alice." -> "Name is Alice"), with what it says of
    them in the same breath ("I'm Lucas, from Porto" -> "Name is Lucas, from Porto"); None for any other sentence."""
    found = _introduction(sentence, greeted)
    if found is None:
        return None
    rest = sentence.strip()[found[1] :].strip()
    if rest and _APPOSITION.match(rest):
        return f"{introduction(found[0])}, {rest.rstrip(' .!')}"
    return introduction(found[0])


def is_greeting(sentence: str) -> bool:
    """Nothing but a greeting ("hi!!", "Hello there.")."""
    return _ONLY_GREETING.match(sentence.strip()) is not None


def _introduction(sentence: str, greeted: bool) -> tuple[str, int] | None:
    stripped = sentence.strip()
    match = _INTRO.match(stripped)
    if match is None:
        return None
    name = match.group("name") or match.group("here")
    greeted = greeted or bool(match.group("greeting"))
    if match.group("here") and not greeted:
        return None  # "Rosa here" needs its greeting: "hi!! rosa here"
    first = name.split()[0]
    if first.lower() in NOT_NAMES or (not first[0].isupper() and not greeted):
        return None
    return name[:1].upper() + name[1:], match.end()


def introduction(name: str) -> str:
    """What the memory says of a user who introduced themselves."""
    return f"Name is {name}"
