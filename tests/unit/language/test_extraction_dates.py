"""Relative dates, resolved against the time the message was sent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemo.language.en.extraction.dates import resolve_dates

THURSDAY = datetime(2025, 3, 13, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "resolved"),
    [
        ("I started at Stripe last Tuesday.", "I started at Stripe on Tuesday 11 March 2025."),
        ("I'm flying to Rome next Friday", "I'm flying to Rome on Friday 14 March 2025"),
        ("We met yesterday", "We met on 12 March 2025"),
        ("I visited my mom this morning", "I visited my mom on 13 March 2025"),
        ("My exam is tomorrow", "My exam is on 14 March 2025"),
        ("I got a dog 3 days ago", "I got a dog on 10 March 2025"),
        ("I got a dog a couple of days ago", "I got a dog on 11 March 2025"),
        ("I ran a marathon two weeks ago", "I ran a marathon around 27 February 2025"),
        ("My finals start in two weeks", "My finals start around 27 March 2025"),
        ("I was ill last week", "I was ill the week of 3 March 2025"),
        ("I quit last month", "I quit in February 2025"),
        ("I moved last year", "I moved in 2024"),
        ("I moved here last May", "I moved here in May 2024"),
        ("We married in last January", "We married in January 2025"),
        ("We went to Japan last summer", "We went to Japan in summer 2024"),
        ("I went hiking on Saturday", "I went hiking on Saturday 8 March 2025"),
        ("I'll call her on Saturday", "I'll call her on Saturday 15 March 2025"),
        (
            "I want to cook for a dinner party on saturday",
            "I want to cook for a dinner party on Saturday 15 March 2025",
        ),
        ("My parents arrived on Monday", "My parents arrived on Monday 10 March 2025"),
        ("I got engaged last weekend", "I got engaged the weekend of 8 March 2025"),
        ("We're away this weekend", "We're away the weekend of 15 March 2025"),
        ("The move is next weekend", "The move is the weekend of 22 March 2025"),
        ("moving out at the end of the month", "moving out at the end of March 2025"),
        ("My contract ends at the end of next month", "My contract ends at the end of April 2025"),
        ("We marry at the end of the year", "We marry at the end of 2025"),
        ("We went hiking on Saturday and yesterday", "We went hiking on Saturday 8 March 2025 and on 12 March 2025"),
        ("I live in Lisbon", "I live in Lisbon"),
    ],
)
def test_a_relative_date_is_written_as_the_date_it_means(sentence: str, resolved: str) -> None:
    assert resolve_dates(sentence, THURSDAY) == resolved


def test_last_weekday_on_that_weekday_is_a_week_before() -> None:
    assert resolve_dates("I started last Thursday", THURSDAY) == "I started on Thursday 6 March 2025"


def test_on_a_weekend_this_weekend_is_the_current_one_and_last_weekend_the_one_before() -> None:
    sunday = datetime(2026, 6, 14, 11, 30, tzinfo=UTC)
    assert resolve_dates("I got engaged last weekend", sunday) == "I got engaged the weekend of 6 June 2026"
    assert resolve_dates("We hiked this weekend", sunday) == "We hiked the weekend of 13 June 2026"
