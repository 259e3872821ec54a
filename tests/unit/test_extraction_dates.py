"""Relative dates, resolved against the time the message was sent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemo.services.extraction.dates import resolve_dates

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
        ("I ran a marathon two weeks ago", "I ran a marathon the week of 24 February 2025"),
        ("I quit last month", "I quit in February 2025"),
        ("I moved last year", "I moved in 2024"),
        ("I moved here last May", "I moved here in May 2024"),
        ("We married in last January", "We married in January 2025"),
        ("We went to Japan last summer", "We went to Japan in summer 2024"),
        ("I went hiking on Saturday", "I went hiking on Saturday 8 March 2025"),
        ("I'll call her on Saturday", "I'll call her on Saturday 15 March 2025"),
        ("We went hiking on Saturday and yesterday", "We went hiking on Saturday 8 March 2025 and on 12 March 2025"),
        ("I live in Lisbon", "I live in Lisbon"),
    ],
)
def test_a_relative_date_is_written_as_the_date_it_means(sentence: str, resolved: str) -> None:
    assert resolve_dates(sentence, THURSDAY) == resolved


def test_last_weekday_on_that_weekday_is_a_week_before() -> None:
    assert resolve_dates("I started last Thursday", THURSDAY) == "I started on Thursday 6 March 2025"
