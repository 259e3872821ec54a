"""The answer of a project's usage route: its counts per day (UTC), its memories now and its totals."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, Field

from mnemo.api.responses import LLMUsageOut
from mnemo.services.platform.usage.report import UsageCounts, UsageDay, UsageReport


class UsageCountsOut(BaseModel):
    adds: int = Field(description="Adds that ended (asynchronous and synchronous adds, imports).", examples=[12])
    searches: int = Field(description="Searches served (v1, v2 and v3).", examples=[140])
    gets: int = Field(description="Reads of memories served (lists and single memories).", examples=[31])
    llm_usage: LLMUsageOut = Field(description="The LLM calls and tokens the adds spent.")

    @classmethod
    def of(cls, counts: UsageCounts) -> UsageCountsOut:
        return cls(**_counted(counts))


class UsageDayOut(UsageCountsOut):
    day: dt.date = Field(description="The day (UTC).", examples=["2026-11-29"])

    @classmethod
    def of_day(cls, day: UsageDay) -> UsageDayOut:
        return cls(day=day.day, **_counted(day.counts))


def _counted(counts: UsageCounts) -> dict[str, Any]:
    return {
        "adds": counts.adds,
        "searches": counts.searches,
        "gets": counts.gets,
        "llm_usage": LLMUsageOut.of(counts.llm),
    }


class UsageOut(BaseModel):
    """A project's usage over the days asked for, today (UTC) included, with every day of the range listed (a day
    without any count is zeros). Days before the per-day counters were kept read as zero; the totals count since
    the project was made. The memories are the count now: no count of memories per past day is kept."""

    project_id: str = Field(examples=["proj_0a1b2c3d4e5f6a7b8c9d"])
    first_day: dt.date = Field(description="The first day of the range (UTC).", examples=["2026-10-31"])
    last_day: dt.date = Field(description="The last day of the range: today (UTC).", examples=["2026-11-29"])
    days: list[UsageDayOut] = Field(description="One entry per day of the range, oldest first.")
    total_memories: int = Field(description="The memories the project holds now.", examples=[1204])
    totals: UsageCountsOut = Field(description="The project's counts since it was made (as GET /v1/stats/).")

    @classmethod
    def of(cls, report: UsageReport) -> UsageOut:
        return cls(
            project_id=report.project_id,
            first_day=report.first_day,
            last_day=report.last_day,
            days=[UsageDayOut.of_day(day) for day in report.days],
            total_memories=report.total_memories,
            totals=UsageCountsOut.of(report.totals),
        )
