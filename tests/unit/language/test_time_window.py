"""The time a query is about (mnemo.language.en.time_words): relative phrases resolved against the reference date, and
the dates a text names, as windows."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from mnemo.language import Language, Window
from mnemo.language.en import english

ENGLISH: Language = english()  # the pack, through its interface
dates_named, query_windows = ENGLISH.dates_named, ENGLISH.query_windows

REFERENCE = datetime(2023, 7, 15, 12, 0, tzinfo=UTC)


def spans(windows: list[Window]) -> list[tuple[date, date]]:
    return [(w.start.date(), w.end.date()) for w in windows]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What did I do last May?", (date(2023, 5, 1), date(2023, 6, 1))),
        ("what happened yesterday", (date(2023, 7, 14), date(2023, 7, 15))),
        ("where did we go last week?", (date(2023, 7, 3), date(2023, 7, 10))),
        ("what did I do last weekend", (date(2023, 7, 8), date(2023, 7, 10))),
        ("what did I buy two weeks ago", (date(2023, 6, 28), date(2023, 7, 5))),
        ("what did I do last year", (date(2022, 1, 1), date(2023, 1, 1))),
        ("at the end of the month", (date(2023, 7, 22), date(2023, 8, 1))),
        ("What did Melanie paint in May 2022?", (date(2022, 5, 1), date(2022, 6, 1))),
        ("Where was Tim in the week before 16 November 2023?", (date(2023, 11, 9), date(2023, 11, 16))),
    ],
)
def test_a_time_phrase_is_resolved_against_the_reference_date(query: str, expected: tuple[date, date]) -> None:
    assert spans(query_windows(query, REFERENCE)) == [expected]


def test_the_same_phrase_moves_with_the_reference_date() -> None:
    assert spans(query_windows("last May", datetime(2025, 2, 1, tzinfo=UTC))) == [(date(2024, 5, 1), date(2024, 6, 1))]


@pytest.mark.parametrize(
    "query", ["the week before the wedding", "When did Caroline go to the support group?", "room 2022 b"]
)
def test_a_query_naming_no_date_has_no_window(query: str) -> None:
    assert query_windows(query, REFERENCE) == []


def test_a_text_names_its_dates_each_read_once() -> None:
    text = "Went to Lisbon the week of 3 July 2023, back on 12 August 2023; in summer 2022 too."
    assert spans(dates_named(text)) == [
        (date(2023, 7, 3), date(2023, 7, 10)),
        (date(2023, 8, 12), date(2023, 8, 13)),
        (date(2022, 6, 1), date(2022, 9, 1)),
    ]


def test_a_window_holds_its_start_not_its_end_and_reads_naive_times_as_utc() -> None:
    (window,) = query_windows("yesterday", REFERENCE)
    assert window.holds(datetime(2023, 7, 14))
    assert window.holds(datetime(2023, 7, 14, 23, 59, tzinfo=UTC))
    assert not window.holds(datetime(2023, 7, 15, tzinfo=UTC))
