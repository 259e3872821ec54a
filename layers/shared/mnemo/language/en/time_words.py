"""When a query is about: the time phrases it names ("last May", "yesterday", "in summer 2022", "on 8 May 2023"),
resolved against a reference date (the search's `reference_date`, else now), as windows of time.

Relative phrases are resolved by mnemo.language.en.extraction.dates (the rules an add uses on what a user says), then
every date the resolved query names is read as the span it stands for: a day; "around" a day (three days either
side); the week of a Monday, the weekend of a Saturday, the week before or after a day; the end of a month (its last
ten days) or of a year (its December); a month; a season (its three months); a year ("in 2022"). A phrase relative
to an event the query names ("the week before the wedding") has no date to resolve against: it gives no window. The
patterns are data (data/time_words.toml); the spans they stand for are read here."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from mnemo.language.en.extraction.dates import MONTHS, SEASONS, resolve_dates
from mnemo.language.en.patterns import patterns
from mnemo.language.time_windows import Window

# The dates a text names, widest first, each named by the kind of span it reads (data/time_words.toml).
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(patterns("time_words.toml").items())


def _at(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _month(name: str) -> int:
    return MONTHS.index(name.lower()) + 1


def _month_span(year: int, month: int, months: int = 1) -> tuple[date, date]:
    end_year, end_month = divmod(month - 1 + months, 12)
    return date(year, month, 1), date(year + end_year, end_month + 1, 1)


_DAY_SPANS = {  # a span around one day: (days from it to the start, length in days)
    "week_before": (-7, 7),
    "week_after": (1, 7),
    "weekend": (0, 2),
    "week": (0, 7),
    "around": (-3, 7),
    "day": (0, 1),
}


def _span(kind: str, groups: tuple[str, ...]) -> tuple[date, date] | None:
    span: tuple[date, date] | None = None
    try:
        if kind in _DAY_SPANS:
            offset, length = _DAY_SPANS[kind]
            start = date(int(groups[2]), _month(groups[1]), int(groups[0])) + timedelta(days=offset)
            span = start, start + timedelta(days=length)
        elif kind == "month_end":
            after = _month_span(int(groups[1]), _month(groups[0]))[1]
            span = after - timedelta(days=10), after
        elif kind == "year_end":
            span = date(int(groups[0]), 12, 1), date(int(groups[0]) + 1, 1, 1)
        elif kind == "month":
            span = _month_span(int(groups[1]), _month(groups[0]))
        elif kind == "season":
            span = _month_span(int(groups[1]), SEASONS[groups[0].lower()], 3)
        elif kind == "year":
            span = date(int(groups[0]), 1, 1), date(int(groups[0]) + 1, 1, 1)
    except ValueError:  # "31 February 2023"
        return None
    return span


def dates_named(text: str) -> list[Window]:
    """The spans of time `text` names as dates (no relative phrase resolved): a later, narrower pattern never reads
    the words a wider one took ("the week of 3 July 2023" is a week, not also the day)."""
    windows: list[Window] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            span = _span(kind, match.groups())
            if span is not None:
                taken.append((match.start(), match.end()))
                windows.append(Window(_at(span[0]), _at(span[1])))
    return windows


def query_windows(query: str, reference: datetime) -> list[Window]:
    """The windows of time the query is about, its relative phrases resolved against `reference`."""
    return dates_named(resolve_dates(query, reference))
