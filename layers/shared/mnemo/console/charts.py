"""Daily series as inline SVG charts, rendered on the server: the console's Usage page shows them without any
script, charting library or web font.

Pure functions of the data: a bar per day, sized by the number of days (each bar narrower as days grow, the width
bounded), a value axis from zero to a round maximum, dates under the bars (a few, never crowded). Each chart is an
image to assistive technology (`role="img"`, `aria-label`, a `<title>` and a `<desc>` that states the range, the
total and the highest day), and each bar has its own `<title>` (its date and value). Every text that reaches the SVG
(a project's name in a title, a series label) is escaped, so that markup in it renders as text; nothing in a chart
is a script, an event handler or a link to anything outside it. An empty series is a chart that says "No data
yet".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from html import escape

PLOT_HEIGHT = 160
TOP = 16
LEFT = 56  # room for the value labels
RIGHT = 40  # room for half the last date label
BOTTOM = 40  # room for the date labels
MIN_STEP = 3  # pixels per day, at most days
MAX_STEP = 28
WIDE_PLOT = 720  # the plot's width the step aims at
DATE_LABELS = 6  # at most this many dates under the bars
DATE_SPACE = 72  # pixels between two date labels at least (a date is about 60 wide)
FONT = 'font-family="system-ui, sans-serif" font-size="11"'
NO_DATA = "No data yet"


@dataclass(frozen=True, slots=True)
class DayValue:
    day: date
    value: int


@dataclass(frozen=True, slots=True)
class _Frame:
    """Where a series is drawn: the step between bars and the value at the top of the plot."""

    step: int
    top_value: int

    def y(self, value: int) -> float:
        return TOP + PLOT_HEIGHT - PLOT_HEIGHT * value / self.top_value


def bar_chart(title: str, series: Sequence[DayValue], *, unit: str) -> str:
    """The series as an SVG bar chart (a string to inline in a page): `title` names the chart (e.g. "Searches per
    day — my project"), `unit` what a value counts (e.g. "searches"). Days are drawn in the order given."""
    if not series:
        return _empty(title)
    step = max(MIN_STEP, min(MAX_STEP, WIDE_PLOT // len(series)))
    frame = _Frame(step=step, top_value=round_up(max(point.value for point in series)))
    width = LEFT + step * len(series) + RIGHT
    height = TOP + PLOT_HEIGHT + BOTTOM
    parts = [
        _open(title, _described(series, unit), width, height),
        *_value_axis(frame, width),
        *_bars(series, frame, unit),
        *_date_labels(series, frame),
        f'<text x="{LEFT}" y="{height - 4}" {FONT}>{escape(unit)} per day (UTC)</text>',
        "</svg>",
    ]
    return "\n".join(parts)


def round_up(value: int) -> int:
    """The top of the value axis: the value rounded up to 1, 2 or 5 times a power of ten (1 for 0)."""
    if value <= 1:
        return 1
    power: int = 10 ** math.floor(math.log10(value))
    for factor in (1, 2, 5):
        if value <= factor * power:
            return factor * power
    return 10 * power


def _open(title: str, description: str, width: int, height: int) -> str:
    label = escape(title, quote=True)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{label}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">\n'
        f"<title>{escape(title)}</title>\n<desc>{escape(description)}</desc>"
    )


def _described(series: Sequence[DayValue], unit: str) -> str:
    highest = max(series, key=lambda point: point.value)
    total = sum(point.value for point in series)
    return (
        f"{series[0].day.isoformat()} to {series[-1].day.isoformat()}: {total:,} {unit} in all; "
        f"the highest day {highest.day.isoformat()}, {highest.value:,} {unit}."
    )


def _value_axis(frame: _Frame, width: int) -> list[str]:
    """Grid lines and labels at zero, half the top and the top."""
    lines = []
    for value in (0, frame.top_value // 2, frame.top_value) if frame.top_value > 1 else (0, 1):
        y = frame.y(value)
        lines.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{width - RIGHT}" y2="{y:.1f}" stroke="#ccc"/>')
        lines.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" {FONT}>{value:,}</text>')
    return lines


def _bars(series: Sequence[DayValue], frame: _Frame, unit: str) -> list[str]:
    bar = max(1, frame.step - 1)
    out = []
    for n, point in enumerate(series):
        y = frame.y(point.value)
        out.append(
            f'<rect x="{LEFT + n * frame.step}" y="{y:.1f}" width="{bar}" height="{TOP + PLOT_HEIGHT - y:.1f}" '
            f'fill="#3b6fb6" data-day="{point.day.isoformat()}" data-value="{point.value}">'
            f"<title>{point.day.isoformat()}: {point.value:,} {escape(unit)}</title></rect>"
        )
    return out


def _date_labels(series: Sequence[DayValue], frame: _Frame) -> list[str]:
    """The first day, the last, and evenly spaced days between: at most DATE_LABELS, never overlapping."""
    every = max(1, math.ceil((len(series) - 1) / (DATE_LABELS - 1)), math.ceil(DATE_SPACE / frame.step))
    shown = sorted({*range(0, len(series), every), len(series) - 1})
    gap = shown[-1] - shown[-2] if len(shown) > 1 else every
    if gap < every / 2 or gap * frame.step < DATE_SPACE:
        del shown[-2]  # the last day's label would crowd the one before
    y = TOP + PLOT_HEIGHT + 14
    return [
        f'<text x="{LEFT + n * frame.step + frame.step / 2:.1f}" y="{y}" text-anchor="middle" {FONT}>'
        f"{series[n].day.isoformat()}</text>"
        for n in shown
    ]


def _empty(title: str) -> str:
    width, height = LEFT + WIDE_PLOT // 2 + RIGHT, TOP + PLOT_HEIGHT + BOTTOM
    return "\n".join(
        [
            _open(title, NO_DATA, width, height),
            f'<rect x="{LEFT}" y="{TOP}" width="{WIDE_PLOT // 2}" height="{PLOT_HEIGHT}" fill="none" stroke="#ccc"/>',
            f'<text x="{LEFT + WIDE_PLOT // 4}" y="{TOP + PLOT_HEIGHT // 2}" text-anchor="middle" {FONT}>'
            f"{NO_DATA}</text>",
            "</svg>",
        ]
    )
