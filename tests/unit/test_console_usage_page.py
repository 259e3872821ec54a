"""The Usage page's parts without a browser: the days it may show (7, 30 or 90, a clear refusal otherwise) and one
chart per figure of the report, each bar a day, with a project name's markup escaped."""

from __future__ import annotations

from datetime import date

import pytest

from mnemo.console.usage import DEFAULT_DAYS, SERIES, charts, chosen_days
from mnemo.domain.llm_usage import LLMUsage
from mnemo.errors import ValidationError
from mnemo.services.platform.usage.report import UsageCounts, UsageDay, UsageReport


def _report() -> UsageReport:
    days = (
        UsageDay(date(2026, 11, 28), UsageCounts(adds=2, searches=5, gets=1, llm=LLMUsage(3, 100, 20))),
        UsageDay(date(2026, 11, 29), UsageCounts(adds=1, searches=0, gets=4, llm=LLMUsage(1, 40, 2))),
    )
    return UsageReport("p1", date(2026, 11, 28), date(2026, 11, 29), days, 7, UsageCounts(adds=3))


@pytest.mark.parametrize(("raw", "days"), [(None, DEFAULT_DAYS), ("7", 7), ("30", 30), ("90", 90)])
def test_the_days_shown_are_one_of_the_choices(raw: str | None, days: int) -> None:
    assert chosen_days(raw) == days


@pytest.mark.parametrize("raw", ["5", "366", "", "seven", "-7", "7.0"])
def test_any_other_days_are_refused_with_the_choices(raw: str) -> None:
    with pytest.raises(ValidationError, match="days is one of 7, 30, 90"):
        chosen_days(raw)


def test_each_figure_is_a_chart_with_a_bar_a_day() -> None:
    drawn = charts(_report(), "Acme")
    assert [series.title for series, _svg in drawn] == [series.title for series in SERIES]
    by_title = {series.title: str(svg) for series, svg in drawn}
    assert 'data-day="2026-11-28" data-value="2"' in by_title["Adds"]
    assert 'data-day="2026-11-29" data-value="4"' in by_title["Gets"]
    assert 'data-day="2026-11-28" data-value="120"' in by_title["LLM tokens"]  # input and output
    assert 'data-day="2026-11-28" data-value="3"' in by_title["LLM calls"]
    assert by_title["Searches"].count("<rect") == 2


def test_markup_in_the_projects_name_is_escaped_in_the_charts() -> None:
    for _series, svg in charts(_report(), "<script>alert(1)</script>"):
        assert "<script>" not in svg and "&lt;script&gt;" in svg
