"""The English words of keyword search: a text's content words (its words but the stop words of
data/keywords.toml, a contraction read as its first word) and a day written as words ("8 May 2023", the month's
name from data/words.toml), which a keyword index stores beside each memory so that a query naming a date finds it."""

from __future__ import annotations

import functools
from datetime import UTC, datetime

from mnemo.domain.text import words
from mnemo.language.en.words import PackDataError, read_toml
from mnemo.language.en.words import words as word_lists


@functools.cache
def stop_words() -> frozenset[str]:
    """The words a keyword search leaves out (read once)."""
    value = read_toml("keywords.toml").get("stop_words")
    if not isinstance(value, str) or not value.split():
        raise PackDataError("mnemo.language.en data/keywords.toml: `stop_words` must be a non-empty string of words")
    return frozenset(value.split())


STOP_WORDS = stop_words()


def keywords(text: str) -> list[str]:
    """The distinct content words of a text, in order of appearance."""
    seen: dict[str, None] = {}
    for token in words(text):
        word = token.replace("’", "'").split("'")[0]
        if word and word not in STOP_WORDS:
            seen.setdefault(word, None)
    return list(seen)


def date_words(moment: datetime) -> str:
    """A day in words for keyword search, such as "8 May 2023" (in UTC)."""
    day = moment.astimezone(UTC) if moment.tzinfo else moment
    return f"{day.day} {word_lists().months[day.month - 1].capitalize()} {day.year}"
