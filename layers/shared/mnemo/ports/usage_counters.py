"""A project's counters per day (UTC): how many searches, gets, adds and LLM tokens it counted on each day.

A project's totals (`ProjectRecordStore.counters`) say how much since the project was made; these say when, for
its usage report. Each is one record per project, day and name, bumped by an atomic increment (concurrent bumps
never lose one) and read back over a range of days. They are records of the project: deleting the project
(`DirectoryStore.delete_project`) deletes them with the rest.
"""

from __future__ import annotations

from datetime import date
from typing import Protocol


class DailyCounterStore(Protocol):
    def bump_daily(self, project_id: str, day: date, name: str, by: int = 1) -> None:
        """Add `by` to the project's counter `name` of that day (a counter not yet stored starts at 0)."""
        ...

    def daily_counters(self, project_id: str, first: date, last: date) -> dict[date, dict[str, int]]:
        """The project's counters of each day from `first` to `last` (both included) that counted anything, by
        day then name; a day without any is absent."""
        ...
