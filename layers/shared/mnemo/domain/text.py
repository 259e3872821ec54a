"""Words, stop words and sentences: the small amount of language handling memories need."""

from __future__ import annotations

import re
from datetime import UTC, datetime

STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours yourself yourselves
    s t don doesn didn isn aren wasn weren won wouldn shouldn couldn ll re ve d m o y""".split()
)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def keywords(text: str) -> list[str]:
    """The distinct content words of a query, in order of appearance."""
    seen: dict[str, None] = {}
    for token in words(text):
        word = token.replace("’", "'").split("'")[0]
        if word and word not in STOP_WORDS:
            seen.setdefault(word, None)
    return list(seen)


MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def date_words(moment: datetime) -> str:
    """A day in words for keyword search, such as "8 May 2023" (in UTC, English month names)."""
    day = moment.astimezone(UTC) if moment.tzinfo else moment
    return f"{day.day} {MONTH_NAMES[day.month - 1]} {day.year}"
