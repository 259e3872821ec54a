"""A project's usage report: per day (UTC) of a range ending today, its adds, searches, gets and the LLM calls and
tokens its adds spent; beside them the memories it holds now and its totals since it was made.

What the data allows, and no more: the days come from the per-day counters (daily.py), so a day before they were
kept reads as zero. The memories are the count now, not one per day: a memory deleted leaves no trace of the day
it was added, so a count per past day could only be guessed. Counts that wait in RetrievalCounts' writer are
flushed before the report reads them (`flush`), so a search made just before is in it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from mnemo.domain import filters as f
from mnemo.domain.llm_usage import NO_USAGE, LLMUsage, from_counters
from mnemo.domain.memory import now
from mnemo.domain.tenancy import Project
from mnemo.errors import ValidationError
from mnemo.ports.tenancy_store import ProjectRecordStore
from mnemo.ports.usage_counters import DailyCounterStore
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.usage.daily import utc_day

# The project counters the report reads (their names are the statistics', GET /v1/stats/).
ADD_EVENTS = "add_events"
SEARCH_EVENTS = "search_events"
GET_EVENTS = "get_events"
DEFAULT_DAYS = 30
MAX_DAYS = 366  # a year, leap day included: one read of at most this many days' counters


@dataclass(frozen=True, slots=True)
class UsageCounts:
    """What a project counted: adds that ended (asynchronous and synchronous adds, imports), searches, gets (lists
    and single memories), and the LLM calls and tokens its adds spent."""

    adds: int = 0
    searches: int = 0
    gets: int = 0
    llm: LLMUsage = NO_USAGE

    @classmethod
    def of(cls, counters: Mapping[str, int]) -> UsageCounts:
        return cls(
            adds=counters.get(ADD_EVENTS, 0),
            searches=counters.get(SEARCH_EVENTS, 0),
            gets=counters.get(GET_EVENTS, 0),
            llm=from_counters(dict(counters)),
        )


@dataclass(frozen=True, slots=True)
class UsageDay:
    day: date
    counts: UsageCounts


@dataclass(frozen=True, slots=True)
class UsageReport:
    project_id: str
    first_day: date
    last_day: date  # today (UTC)
    days: tuple[UsageDay, ...]  # every day from first_day to last_day, oldest first; a day without counts is zeros
    total_memories: int  # now
    totals: UsageCounts  # since the project was made


def checked_days(days: object) -> int:
    """The number of days asked for, a whole number from 1 to MAX_DAYS; else a ValidationError."""
    if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= MAX_DAYS:
        raise ValidationError(f"days must be a whole number from 1 to {MAX_DAYS}; {days!r} was given.")
    return days


def stored_memories(namespaces: NamespaceMemoryServices) -> Callable[[str], int]:
    """How many memories a project holds now, expired ones included (as its statistics count them)."""
    return lambda project_id: namespaces.memory_service(project_id).count(f.And(()), show_expired=True)


class UsageService:
    def __init__(
        self,
        records: ProjectRecordStore,
        days: DailyCounterStore,
        memories: Callable[[str], int],
        *,
        clock: Callable[[], datetime] = now,
        flush: Callable[[], None] = lambda: None,
    ) -> None:
        """`memories`: a project's count of memories now (`stored_memories`); `flush`: writes the counts that
        wait to be written (RetrievalCounts.flush)."""
        self._records = records
        self._days = days
        self._memories = memories
        self._clock = clock
        self._flush = flush

    def report(self, project: Project, days: object = DEFAULT_DAYS) -> UsageReport:
        """The project's usage over the `days` days ending today (UTC), today included."""
        count = checked_days(days)
        self._flush()
        last = utc_day(self._clock())
        first = last - timedelta(days=count - 1)
        stored = self._days.daily_counters(project.id, first, last)
        series = tuple(
            UsageDay(day, UsageCounts.of(stored.get(day, {})))
            for day in (first + timedelta(days=n) for n in range(count))
        )
        return UsageReport(
            project_id=project.id,
            first_day=first,
            last_day=last,
            days=series,
            total_memories=self._memories(project.id),
            totals=UsageCounts.of(self._records.counters(project.id)),
        )
