"""Self-introductions: "I'm Alice.", "My name is Alice Smith", "Call me Al", "hi im ines", "hi!! rosa here" — the
user's name, which the extractor keeps ("Name is Alice") though the sentence has a single content word.

A name is capitalized ("I'm Alice"), or, after a greeting, may be written in lower case as people type in chats
("hi im ines" -> "Name is Ines"; "I'm tired" alone is no introduction). An introduction followed by a comma and more
("hi im ines, on my break at 2am") is the introduction, and the rest is a sentence of its own. The words and patterns
are data (data/introductions.toml)."""

from __future__ import annotations

from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import word_set

_FILE = "introductions.toml"
# Capitalized words after "I'm" that are no name ("I'm Fine.", "I'm Back!").
NOT_NAMES = word_set(_FILE, "not_names")
_INTRO = pattern(_FILE, "intro")
# What says more of the one introduced, in the same breath: "I'm Lucas, from Porto", "I'm Ana, a nurse".
_APPOSITION = pattern(_FILE, "apposition")
_ONLY_GREETING = pattern(_FILE, "only_greeting")


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
