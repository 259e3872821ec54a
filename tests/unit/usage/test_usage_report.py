"""UsageService: a report over the days ending today (UTC), every day listed oldest first with its counts (zeros
where nothing was counted), the memories now and the totals; the number of days is bounded; counts waiting to be
written are flushed first."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.tenancy import Project
from mnemo.errors import ValidationError
from mnemo.services.platform.usage.report import MAX_DAYS, UsageCounts, UsageService
from tests.unit.usage.fakes import MemoryCounters

TODAY = datetime(2026, 11, 29, 8, 0, tzinfo=UTC)
PROJECT = Project(id="proj_a", org_id="org_a", name="a", created_at=TODAY, updated_at=TODAY)


def service(counters: MemoryCounters, *, flushes: list[str] | None = None) -> UsageService:
    def flush() -> None:
        if flushes is not None:
            flushes.append("flushed")

    return UsageService(
        counters,  # type: ignore[arg-type]
        counters,
        lambda project_id: {"proj_a": 7}.get(project_id, 0),
        clock=lambda: TODAY,
        flush=flush,
    )


def test_a_report_lists_every_day_of_the_range_with_its_counts() -> None:
    # Given counts on two days of the last week, one of them on another project too
    counters = MemoryCounters()
    counters.bump_daily("proj_a", date(2026, 11, 24), "search_events", 3)
    counters.bump_daily("proj_a", date(2026, 11, 29), "add_events", 2)
    counters.bump_daily("proj_a", date(2026, 11, 29), "llm_calls", 2)
    counters.bump_daily("proj_a", date(2026, 11, 29), "llm_input_tokens", 900)
    counters.bump_daily("proj_a", date(2026, 11, 29), "llm_output_tokens", 80)
    counters.bump_daily("proj_b", date(2026, 11, 29), "search_events", 50)
    counters.bump_daily("proj_a", date(2026, 11, 20), "search_events", 9)  # before the range
    counters.bump_counter("proj_a", "search_events", 12)
    counters.bump_counter("proj_a", "get_events", 4)
    # When the last 7 days are reported
    report = service(counters).report(PROJECT, 7)
    # Then each day from the 23rd to today is listed, oldest first
    assert (report.first_day, report.last_day) == (date(2026, 11, 23), date(2026, 11, 29))
    assert [d.day.day for d in report.days] == [23, 24, 25, 26, 27, 28, 29]
    assert report.days[1].counts == UsageCounts(searches=3)
    assert report.days[6].counts == UsageCounts(adds=2, llm=LLMUsage(2, 900, 80))
    assert all(d.counts == UsageCounts() for d in report.days if d.day.day not in (24, 29))
    # And the memories now and the totals since the project was made beside them
    assert report.total_memories == 7
    assert report.totals == UsageCounts(searches=12, gets=4)
    assert report.project_id == "proj_a"


def test_the_default_range_is_thirty_days_ending_today() -> None:
    report = service(MemoryCounters()).report(PROJECT)
    assert len(report.days) == 30
    assert report.first_day == date(2026, 10, 31)
    assert report.days[-1].day == date(2026, 11, 29)


def test_a_year_and_a_day_is_the_most() -> None:
    assert len(service(MemoryCounters()).report(PROJECT, MAX_DAYS).days) == 366


@pytest.mark.parametrize("days", [0, -1, MAX_DAYS + 1, True, "30", 2.5, None])
def test_days_out_of_bounds_are_a_validation_error(days: object) -> None:
    with pytest.raises(ValidationError, match=f"days must be a whole number from 1 to {MAX_DAYS}"):
        service(MemoryCounters()).report(PROJECT, days)


def test_counts_waiting_to_be_written_are_flushed_before_the_report_reads() -> None:
    flushes: list[str] = []
    service(MemoryCounters(), flushes=flushes).report(PROJECT, 1)
    assert flushes == ["flushed"]
