"""Relative dates, resolved against the time a message was sent: "last Tuesday" -> "on 11 March 2025".

What is resolved (case-insensitive), with `at` the message's time (UTC):
- a day: today, tonight, this morning/afternoon/evening -> that day; yesterday, last night -> the day before; the day
  before yesterday; tomorrow; the day after tomorrow; "N days ago" / "in N days" (N a digit or a number word, "a",
  "a couple of" = 2, "a few" = 3: "around" that day);
- a weekday: "last Tuesday" (the latest before `at`'s day), "next Tuesday" and "this Tuesday" (the first one after,
  or `at`'s day for "this"), and a bare "on Tuesday": the latest one, `at`'s day included, when the sentence speaks
  of the past (was, went, got, a verb in -ed…) and not of the future (will, going to, 'll, plan), else the next one;
- a weekend: last/this/next weekend -> "the weekend of <its Saturday>" (this weekend: the coming one, or the
  current one on a Saturday or Sunday; last: the one before it; next: the one after it);
- a week: last/this/next week -> "the week of <its Monday>"; "N weeks ago", "in N weeks" -> "around <that day>";
- the end of the month (this, next) or of the year -> "the end of March 2025", "the end of 2025";
- a month: last/this/next month, "N months ago" -> "in March 2025"; "last May" (the latest May before `at`'s
  month), "next May", "this May";
- a year: last/this/next year, "N years ago" -> "in 2024";
- a season: last/this/next spring, summer, fall/autumn, winter -> "in spring 2025" (winter belongs to the year it
  starts in).
Anything else is left as written. The words and patterns are data (data/dates.toml); each rule's pattern is named by
the resolver here that writes its date."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from mnemo.language.en.patterns import pattern, patterns
from mnemo.language.en.words import PackDataError, read_toml, words

WEEKDAYS = words().weekdays
MONTHS = words().months
SEASONS = dict(words().seasons)  # the month each starts in
SEASON_ORDER = (3, 6, 9, 12)


def numbers() -> dict[str, int]:
    """The counts said in words ("a couple of" = 2) of data/dates.toml."""
    found = read_toml("dates.toml").get("numbers")
    if not isinstance(found, dict) or not found or not all(isinstance(n, int) for n in found.values()):
        raise PackDataError("mnemo.language.en data/dates.toml: [numbers] must give each count word a number")
    return dict(found)


NUMBERS = numbers()  # a count said in words (data/dates.toml)
FUTURE = pattern("dates.toml", "future")
PAST = pattern("dates.toml", "past")


def day_words(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1].capitalize()} {day.year}"


def month_words(year: int, month: int) -> str:
    return f"{MONTHS[month - 1].capitalize()} {year}"


def _shift_months(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def _count(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else NUMBERS[text]


def _ago(today: date, n: int, unit: str, sign: int, *, counted: bool = False) -> str:
    """`n` units before (sign -1) or after (+1) today; `counted`: said as a number of units ("two weeks ago"), which
    dates a week to its day, not to its Monday."""
    if unit == "day":
        return f"on {day_words(today + timedelta(days=sign * n))}"
    if unit == "week" and counted:
        return f"around {day_words(today + timedelta(weeks=sign * n))}"
    if unit == "week":
        monday = today + timedelta(weeks=sign * n) - timedelta(days=today.weekday())
        return f"the week of {day_words(monday)}"
    if unit == "month":
        return f"in {month_words(*_shift_months(today, sign * n))}"
    return f"in {today.year + sign * n}"


def _weekday(today: date, name: str, which: str) -> str:
    target = WEEKDAYS.index(name.lower())
    back = (today.weekday() - target) % 7
    forward = (target - today.weekday()) % 7
    if which == "last":
        day = today - timedelta(days=back or 7)
    elif which == "latest":  # a bare "on Tuesday" of the past: that day included
        day = today - timedelta(days=back)
    elif which == "this":
        day = today + timedelta(days=forward)
    else:  # next
        day = today + timedelta(days=forward or 7)
    return f"on {name.capitalize()} {day_words(day)}"


def _weekend(today: date, which: str) -> date:
    """The Saturday of the weekend meant: this one (the coming one, or the current one on a Saturday or Sunday), the
    one before it, or the one after it."""
    this = (
        today + timedelta(days=(5 - today.weekday()) % 7)
        if today.weekday() < 5
        else today - timedelta(days=today.weekday() - 5)
    )
    return this + timedelta(days={"last": -7, "this": 0, "next": 7}[which])


def _period(today: date, which: str) -> str:
    if which == "month":
        return month_words(today.year, today.month)
    if which == "next month":
        return month_words(*_shift_months(today, 1))
    return str(today.year + (1 if which == "next year" else 0))


def _named_month(today: date, name: str, which: str) -> str:
    month = MONTHS.index(name.lower()) + 1
    year = today.year
    if which == "last":
        year = today.year if month < today.month else today.year - 1
    elif which == "next":
        year = today.year if month > today.month else today.year + 1
    return f"in {month_words(year, month)}"


def _season(today: date, name: str, which: str) -> str:
    """The season of that name: the latest before the current season ("last"), the first after it ("next"), or the
    one of this calendar year ("this"; this winter began last December when it is January or February)."""
    quarter = SEASON_ORDER.index(SEASONS[name.lower()])
    year, start = _season_start(today)
    current = year * 4 + SEASON_ORDER.index(start)
    if which == "this":
        wanted = (today.year - (1 if quarter == 3 and today.month <= 2 else 0)) * 4 + quarter
    elif which == "last":
        wanted = current - 1 - (current - 1 - quarter) % 4
    else:
        wanted = current + 1 + (quarter - current - 1) % 4
    return f"in {name.lower()} {wanted // 4}"


def _season_start(day: date) -> tuple[int, int]:
    """The (year, month) the season of `day` started in (winter starts in December)."""
    if day.month == 12:
        return day.year, 12
    if day.month <= 2:
        return day.year - 1, 12
    return day.year, 3 * (day.month // 3)


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date, str], str]]

_Resolver = Callable[[re.Match[str], date, str], str]

# What writes the date each rule's pattern reads (the match, the day the message was sent, the sentence).
_RESOLVERS: dict[str, _Resolver] = {
    "day_before_yesterday": lambda m, d, s: f"on {day_words(d - timedelta(days=2))}",
    "day_after_tomorrow": lambda m, d, s: f"on {day_words(d + timedelta(days=2))}",
    "yesterday": lambda m, d, s: f"on {day_words(d - timedelta(1))}",
    "tomorrow": lambda m, d, s: f"on {day_words(d + timedelta(days=1))}",
    "today": lambda m, d, s: f"on {day_words(d)}",
    "units_ago": lambda m, d, s: _ago(d, _count(m.group("n")), m.group("unit").lower(), -1, counted=True),
    "in_units": lambda m, d, s: _ago(d, _count(m.group("n")), m.group("unit").lower(), 1, counted=True),
    "which_weekday": lambda m, d, s: _weekday(d, m.group("name"), m.group("which").lower()),
    "on_weekday": lambda m, d, s: _weekday(
        d, m.group("name"), "latest" if PAST.search(s) and not FUTURE.search(s) else "this"
    ),
    "weekend": lambda m, d, s: f"the weekend of {day_words(_weekend(d, m.group('which').lower()))}",
    "end_of": lambda m, d, s: f"the end of {_period(d, m.group('which').lower())}",
    "which_unit": lambda m, d, s: _ago(
        d,
        1 if m.group("which").lower() != "this" else 0,
        m.group("unit").lower(),
        -1 if m.group("which").lower() == "last" else 1,
    ),
    "which_month": lambda m, d, s: _named_month(d, m.group("name"), m.group("which").lower()),
    "which_season": lambda m, d, s: _season(d, m.group("name"), m.group("which").lower()),
}


def _rules() -> list[Rule]:
    """The rules of data/dates.toml in their order, each pattern with its resolver; a pattern of neither a rule nor
    a tense is a `PackDataError` (a rule the code cannot write)."""
    rules: list[Rule] = []
    for name, compiled in patterns("dates.toml").items():
        if name in _RESOLVERS:
            rules.append((compiled, _RESOLVERS[name]))
        elif name not in ("future", "past"):
            raise PackDataError(f"mnemo.language.en data/dates.toml: pattern `{name}` is no rule of dates.py")
    if len(rules) != len(_RESOLVERS):
        raise PackDataError("mnemo.language.en data/dates.toml: a rule of dates.py has no pattern")
    return rules


RULES = _rules()


def resolve_dates(sentence: str, at: datetime) -> str:
    """The sentence with each relative date it holds written as the date it means at `at`. The rules are tried in
    order on the sentence as written; a phrase an earlier rule took is not read again by a later one."""
    today = (at.astimezone(UTC) if at.tzinfo else at).date()
    taken: list[tuple[int, int, str]] = []
    for rule, absolute in RULES:
        for match in rule.finditer(sentence):
            start, end = match.span()
            if all(end <= s or start >= e for s, e, _ in taken):
                taken.append((start, end, absolute(match, today, sentence)))
    out, last = [], 0
    for start, end, written in sorted(taken):
        out.append(sentence[last:start])
        out.append(written)
        last = end
    out.append(sentence[last:])
    return "".join(out)
