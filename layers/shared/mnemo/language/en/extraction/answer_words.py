"""The words and patterns a short answer and its question are read with (data/answers.toml), and the few helpers
that say an answer in the user's words: what says yes or no, what says more than yes or no, the question's words
said of the user ("your coffee" -> "coffee"), an answer as the end of a sentence."""

from __future__ import annotations

import re

from mnemo.language.en.extraction.wording import FILLER, INTERJECTIONS, VAGUE
from mnemo.language.en.keywords import STOP_WORDS
from mnemo.language.en.patterns import pattern
from mnemo.language.en.words import word_list, word_set

_FILE = "answers.toml"

YES = word_set(_FILE, "yes")
NO = word_set(_FILE, "no")
PREPOSITIONS = word_set(_FILE, "prepositions")
FREQUENCY = word_set(_FILE, "frequency")
NOT_OBJECTS = word_set(_FILE, "not_objects")
HOW_ONE_IS = word_set(_FILE, "how_one_is")
NO_REST = frozenset(word_list(_FILE, "no_rest"))
COMMON_OPENERS = STOP_WORDS | INTERJECTIONS | word_set(_FILE, "common_openers")


def answer_pattern(name: str) -> re.Pattern[str]:
    """The compiled pattern `name` of data/answers.toml."""
    return pattern(_FILE, name)


WORD = answer_pattern("word")
_YOUR_BEFORE = answer_pattern("your_before")
_YOURSELF = answer_pattern("yourself")
_ANY_SOME = answer_pattern("any_some")


def own(rest: str) -> str:
    """The question's rest, said of the user: "your coffee" -> "coffee", "yourself" -> "themselves"."""
    rest = _YOUR_BEFORE.sub("", rest)
    rest = _YOURSELF.sub("themselves", rest)
    rest = _ANY_SOME.sub("", rest)
    return " ".join(rest.split())


def says_more(said: str) -> bool:
    """The answer says something beyond yes, no and filler."""
    return any(_says_something(w) for w in WORD.findall(said))


def _says_something(word: str) -> bool:
    lower = word.lower()
    plain = lower not in COMMON_OPENERS and lower not in FILLER and lower not in VAGUE
    return plain or lower in FREQUENCY or word.isdigit()


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def lower_first(text: str) -> str:
    """The answer as the end of a sentence: its first letter lower case when its first word is a common one
    ("Mostly in the Alps" -> "mostly in the Alps"); a name keeps its capital ("Lisbon")."""
    first = text.split(" ", 1)[0].lower()
    return text[:1].lower() + text[1:] if first in COMMON_OPENERS else text
