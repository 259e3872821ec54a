"""A question about the user, asked by name, read as the user's own: "Where does Alice live?" -> "Where do I live?".

In a search scoped to one user every memory is about them, so their name in the question picks nothing out — it only
pulls toward the memories that happen to hold the name ("Name is Alice") and away from the ones that say "I". The
question is rewritten in the first person, as the memories are written: "does Alice" -> "do I", "is Alice" ->
"am I", "has Alice" -> "have I", "Alice's" -> "my", and the name elsewhere -> "I" (as a subject) or "me". The words
and patterns are data (data/questions.toml)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import mapping, word_list

_FILE = "questions.toml"
_AUXILIARIES = mapping(_FILE, "auxiliaries", str)
_FIRST_PERSON = mapping(_FILE, "first_person", str)
_I, _ME, _MY = _FIRST_PERSON["subject"], _FIRST_PERSON["object"], _FIRST_PERSON["possessive"]
_PREPOSITIONS = "|".join(word_list(_FILE, "prepositions"))
_POSSESSIVE = pattern(_FILE, "possessive").pattern


def case_folded(text: str) -> str:
    """The text folded so that a word `re.IGNORECASE` finds in it is a substring of it folded the same way: casefold,
    and the dotless ı, which re's ignore-case takes for i."""
    return text.casefold().replace("ı", "i")


# A word that may be a name: capitalized after the start (not "I"), or the query's first word before a verb.
_NAMING = pattern(_FILE, "naming")


def may_name(query: str, user_id: str) -> bool:
    """Whether the query may name the user: their id as a word of it, or a word that may be a name."""
    named_by_id = case_folded(user_id) in case_folded(query) and _user_named(user_id).search(query)
    return bool(_NAMING.search(query) or named_by_id)


@functools.lru_cache(maxsize=1024)
def _user_named(user_id: str) -> re.Pattern[str]:
    """The user's id as a word of a query, compiled once per user (re's own cache churned with many users)."""
    return re.compile(rf"\b{re.escape(user_id)}\b", re.IGNORECASE)


def in_first_person(question: str, names: Iterable[str]) -> str:
    """The question with the user's `names` (each word of them) read as "I"; unchanged when it names none."""
    folded = case_folded(question)
    # Only the words the question contains: each rewrite needs one, and a set of words is compiled once (most
    # questions name nobody; compiling a new user's rewrites cost more than a search of their memories).
    words = tuple(
        sorted({w for name in names for w in name.split() if w and case_folded(w) in folded}, key=len, reverse=True)
    )
    if not words:
        return question
    out = question
    for rewrite, replacement in _rewrites(words):
        out = rewrite.sub(replacement, out)
    return out


@functools.lru_cache(maxsize=1024)
def _rewrites(words: tuple[str, ...]) -> tuple[tuple[re.Pattern[str], Any], ...]:
    """The rewrites of `in_first_person` for these name words, in order, compiled once per set of names: they differ
    from user to user, and compiling them on every search cost more than the rewriting (re's own cache of 512
    patterns churned with a few hundred users)."""
    name = "(?:" + "|".join(re.escape(w) for w in words) + ")(?:\\s+(?:" + "|".join(re.escape(w) for w in words) + "))*"
    flags = re.IGNORECASE
    return (
        (re.compile(rf"\b{name}{_POSSESSIVE}(?!\w)", flags), _MY),
        (
            re.compile(rf"\b(?P<aux>{'|'.join(_AUXILIARIES)})\s+{name}\b", flags),
            lambda m: f"{_AUXILIARIES[m.group('aux').lower()]} {_I}",
        ),
        (re.compile(rf"^{name}\b", flags), _I),
        (
            re.compile(rf"\b(?:{_PREPOSITIONS})\s+{name}\b", flags),
            lambda m: f"{m.group(0).split()[0]} {_ME}",
        ),
        (re.compile(rf"\b{name}\b", flags), _I),
    )
