"""CountedByDay: every counter bumped is counted on its day (UTC) too; a day's count that cannot be written is
logged and leaves the total as written; the store's other records pass through unchanged."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from mnemo.domain.tenancy import Feedback
from mnemo.services.platform.usage.daily import CountedByDay, utc_day
from tests.unit.usage.fakes import MemoryCounters

NOON = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


class Records(MemoryCounters):
    """MemoryCounters with the feedback records of a ProjectRecordStore (the others are alike)."""

    def __init__(self) -> None:
        super().__init__()
        self.feedback: dict[tuple[str, str], Feedback] = {}

    def save_feedback(self, feedback: Feedback) -> None:
        self.feedback[(feedback.project_id, feedback.memory_id)] = feedback

    def get_feedback(self, project_id: str, memory_id: str) -> Feedback | None:
        return self.feedback.get((project_id, memory_id))


def test_a_bump_adds_to_the_total_and_to_the_day_it_is_written_on() -> None:
    # Given a store counted by day, on a clock that moves past midnight
    store = Records()
    clock = Clock(NOON)
    counted = CountedByDay(store, store, clock)  # type: ignore[arg-type]
    # When a project's searches are counted on two days
    counted.bump_counter("p1", "search_events")
    counted.bump_counter("p1", "search_events", 2)
    clock.moment = NOON + timedelta(days=1)
    counted.bump_counter("p1", "search_events")
    # Then the total has all of them, and each day its own
    assert counted.counters("p1") == {"search_events": 4}
    assert store.daily_counters("p1", date(2026, 11, 1), date(2026, 12, 31)) == {
        date(2026, 11, 29): {"search_events": 3},
        date(2026, 11, 30): {"search_events": 1},
    }


def test_the_day_is_the_utc_day_whatever_the_clocks_time_zone() -> None:
    # 23:30 on the 29th in New York is 04:30 on the 30th in UTC
    evening = datetime(2026, 11, 29, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert utc_day(evening) == date(2026, 11, 30)
    store = Records()
    counted = CountedByDay(store, store, Clock(evening))  # type: ignore[arg-type]
    counted.bump_counter("p1", "add_events")
    assert set(store.daily_counters("p1", date(2026, 11, 29), date(2026, 11, 30))) == {date(2026, 11, 30)}


def test_a_day_that_cannot_be_counted_is_logged_and_the_total_stays(caplog: pytest.LogCaptureFixture) -> None:
    # Given a store whose counters per day fail
    store = Records()
    store.failing_days = True
    counted = CountedByDay(store, store, Clock(NOON))  # type: ignore[arg-type]
    # When a counter is bumped, no error reaches the caller (a retrying writer would count the total twice)
    counted.bump_counter("p1", "llm_input_tokens", 120)
    # Then the total is written once and the failure is logged
    assert counted.counters("p1") == {"llm_input_tokens": 120}
    assert "could not count llm_input_tokens of project p1" in caplog.text


def test_other_records_pass_through_to_the_store() -> None:
    store = Records()
    counted = CountedByDay(store, store, Clock(NOON))  # type: ignore[arg-type]
    feedback = Feedback("m1", "p1", "POSITIVE", None, NOON)
    counted.save_feedback(feedback)
    assert counted.get_feedback("p1", "m1") == feedback
    assert store.get_feedback("p1", "m1") == feedback
