"""The project's counters counted per day too: a ProjectRecordStore around the real one, whose every counter bump
(`bump_counter`) is also added to the counter of the same name on the day (UTC) it is written.

Wrapping the store, instead of bumping a second counter beside each first one, keeps one place for it: every figure
the project's statistics count (searches and gets, through RetrievalCounts' writer off the request path; adds and
imports; the LLM calls and tokens an add spent) is counted per day the same way, and the days of a figure add up to
its total from the day this shipped. The total is written first, as before; the day's counter after, and should
that write fail it is logged, not raised: a retrying writer (RetrievalCounts puts a failed count back) must not
count the total twice for a day's counter missed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from mnemo.domain.erasure import Erasure
from mnemo.domain.memory import now
from mnemo.domain.tenancy import Feedback, MemoryExport
from mnemo.ports.tenancy_store import ProjectRecordStore
from mnemo.ports.usage_counters import DailyCounterStore

log = logging.getLogger("mnemo.platform.usage")


def utc_day(moment: datetime) -> date:
    """The day (UTC) of a moment; a moment without a time zone is read as UTC."""
    return moment.astimezone(UTC).date() if moment.tzinfo is not None else moment.date()


class CountedByDay:
    def __init__(
        self, records: ProjectRecordStore, days: DailyCounterStore, clock: Callable[[], datetime] = now
    ) -> None:
        self._records = records
        self._days = days
        self._clock = clock

    def bump_counter(self, project_id: str, name: str, by: int = 1) -> None:
        self._records.bump_counter(project_id, name, by)
        try:
            self._days.bump_daily(project_id, utc_day(self._clock()), name, by)
        except Exception:  # the total is written: a failed day's count must not make a retry count it twice
            log.exception("could not count %s of project %s on today's counter", name, project_id)

    def counters(self, project_id: str) -> dict[str, int]:
        return self._records.counters(project_id)

    # ---- the rest of the store, as it is ----

    def save_export(self, export: MemoryExport) -> None:
        self._records.save_export(export)

    def get_export(self, project_id: str, export_id: str) -> MemoryExport | None:
        return self._records.get_export(project_id, export_id)

    def latest_export(self, project_id: str, filters: dict[str, Any] | None = None) -> MemoryExport | None:
        return self._records.latest_export(project_id, filters)

    def erase_from_exports(self, project_id: str, erasure: Erasure) -> int:
        return self._records.erase_from_exports(project_id, erasure)

    def save_feedback(self, feedback: Feedback) -> None:
        self._records.save_feedback(feedback)

    def get_feedback(self, project_id: str, memory_id: str) -> Feedback | None:
        return self._records.get_feedback(project_id, memory_id)
