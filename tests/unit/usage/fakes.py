"""In-memory counters for the usage tests: a project's totals and its counters per day."""

from __future__ import annotations

from collections import defaultdict
from datetime import date


class MemoryCounters:
    """The counter methods of ProjectRecordStore and DailyCounterStore, in dicts; `failing_days` makes every
    bump of a day's counter raise."""

    def __init__(self) -> None:
        self.totals: dict[str, dict[str, int]] = defaultdict(dict)
        self.days: dict[tuple[str, date], dict[str, int]] = defaultdict(dict)
        self.failing_days = False

    def bump_counter(self, project_id: str, name: str, by: int = 1) -> None:
        counters = self.totals[project_id]
        counters[name] = counters.get(name, 0) + by

    def counters(self, project_id: str) -> dict[str, int]:
        return dict(self.totals.get(project_id, {}))

    def bump_daily(self, project_id: str, day: date, name: str, by: int = 1) -> None:
        if self.failing_days:
            raise OSError("disk full")
        counters = self.days[(project_id, day)]
        counters[name] = counters.get(name, 0) + by

    def daily_counters(self, project_id: str, first: date, last: date) -> dict[date, dict[str, int]]:
        return {
            day: dict(counters)
            for (project, day), counters in self.days.items()
            if project == project_id and first <= day <= last
        }
