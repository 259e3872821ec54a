"""A project's Usage page: its adds, searches, gets, LLM calls and LLM tokens per day (UTC) as server-rendered SVG
bar charts (console/charts.py: no script, no charting library), over the last 7, 30 or 90 days; beside them the
memories it holds now and its totals since it was made (the request counts the API keeps). Any member of the
project sees it, as any member may read the usage route; the report is the same service's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup
from starlette.responses import Response
from starlette.routing import Route

from mnemo.console.charts import DayValue, bar_chart
from mnemo.console.projects import PROJECT, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.errors import ValidationError
from mnemo.services.platform.usage.report import UsageCounts, UsageReport

DAY_CHOICES = (7, 30, 90)
DEFAULT_DAYS = 30


@dataclass(frozen=True, slots=True)
class Series:
    """A figure counted per day: what the chart and the totals call it, its unit, and how to read it."""

    title: str
    unit: str
    read: Callable[[UsageCounts], int]


SERIES = (
    Series("Adds", "adds", lambda counts: counts.adds),
    Series("Searches", "searches", lambda counts: counts.searches),
    Series("Gets", "gets", lambda counts: counts.gets),
    Series("LLM calls", "LLM calls", lambda counts: counts.llm.calls),
    Series("LLM tokens", "tokens", lambda counts: counts.llm.input_tokens + counts.llm.output_tokens),
)


def chosen_days(raw: str | None) -> int:
    """The days asked for: one of DAY_CHOICES (the default when none is); ValidationError (400) otherwise."""
    if raw is None:
        return DEFAULT_DAYS
    if not raw.isdigit() or int(raw) not in DAY_CHOICES:
        raise ValidationError(f"days is one of {', '.join(str(days) for days in DAY_CHOICES)}.")
    return int(raw)


def charts(report: UsageReport, project_name: str) -> list[tuple[Series, Markup]]:
    """Each series of the report as an SVG chart (its text escaped by charts.py, so the markup is safe)."""
    out = []
    for series in SERIES:
        points = [DayValue(day.day, series.read(day.counts)) for day in report.days]
        svg = bar_chart(f"{series.title} per day — {project_name}", points, unit=series.unit)
        out.append((series, Markup(svg)))  # charts.py escapes every text in it
    return out


def _page(visit: Visit) -> Response:
    days = chosen_days(visit.request.query_params.get("days"))
    view = project_view(visit, "usage")
    report = visit.platform.usage.report(view.details.project, days)
    return visit.page(
        "usage.html",
        project=view,
        report=report,
        days=days,
        choices=DAY_CHOICES,
        charts=charts(report, view.details.project.name),
        series=SERIES,
    )


ROUTES = [Route(PROJECT + "/usage", signed_in(_page), methods=["GET"])]
