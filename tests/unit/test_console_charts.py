"""The console's SVG charts, read back with xml.etree: an accessible image (role, label, title, description), one
bar per day with its date and value, the value axis and a few dates, escaped labels, no script or handler, a width
that follows the days, and a clear chart for an empty series."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from datetime import date, timedelta

import pytest

from mnemo.console.charts import NO_DATA, DayValue, bar_chart, round_up

SVG = "{http://www.w3.org/2000/svg}"
FIRST = date(2026, 11, 1)


def days(*values: int) -> list[DayValue]:
    return [DayValue(FIRST + timedelta(days=n), value) for n, value in enumerate(values)]


def parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def bars(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(f"{SVG}rect"))


def test_a_chart_is_an_image_with_a_title_and_a_description() -> None:
    root = parsed(bar_chart("Searches per day", days(3, 0, 12), unit="searches"))
    assert root.get("role") == "img"
    assert root.get("aria-label") == "Searches per day"
    assert root.findtext(f"{SVG}title") == "Searches per day"
    assert root.findtext(f"{SVG}desc") == (
        "2026-11-01 to 2026-11-03: 15 searches in all; the highest day 2026-11-03, 12 searches."
    )


def test_one_bar_per_day_its_height_in_proportion_and_its_own_title() -> None:
    root = parsed(bar_chart("Adds", days(5, 0, 10), unit="adds"))
    drawn = bars(root)
    assert [b.get("data-day") for b in drawn] == ["2026-11-01", "2026-11-02", "2026-11-03"]
    assert [b.get("data-value") for b in drawn] == ["5", "0", "10"]
    heights = [float(b.get("height") or "nan") for b in drawn]
    assert heights[1] == 0
    assert heights[2] == pytest.approx(2 * heights[0])
    assert [b.findtext(f"{SVG}title") for b in drawn] == [
        "2026-11-01: 5 adds",
        "2026-11-02: 0 adds",
        "2026-11-03: 10 adds",
    ]
    xs = [float(b.get("x") or "nan") for b in drawn]
    assert xs == sorted(xs)  # oldest on the left


def test_the_axes_are_labelled_with_values_and_dates() -> None:
    labels = texts(parsed(bar_chart("Adds", days(*range(30)), unit="adds")))
    assert {"0", "25", "50"} <= set(labels)  # zero, half and the round top of 29
    dates = [label for label in labels if label.startswith("2026-")]
    assert dates[0] == "2026-11-01"
    assert dates[-1] == "2026-11-30"
    assert 2 <= len(dates) <= 6
    assert "adds per day (UTC)" in labels


def test_labels_are_escaped_so_markup_renders_as_text() -> None:
    hostile = '<script>alert("x")</script> & "quotes"'
    svg = bar_chart(f"Adds — {hostile}", days(1, 2), unit="<b>adds</b>")
    root = parsed(svg)
    assert root.findtext(f"{SVG}title") == f"Adds — {hostile}"
    assert root.get("aria-label") == f"Adds — {hostile}"
    assert "<script" not in svg and "<b>" not in svg
    assert not list(root.iter(f"{SVG}script"))
    assert bars(root)[0].findtext(f"{SVG}title") == "2026-11-01: 1 <b>adds</b>"


def test_no_script_handler_link_or_font_in_any_chart() -> None:
    for svg in (bar_chart("A", days(1, 2, 3), unit="adds"), bar_chart("A", [], unit="adds")):
        root = parsed(svg)
        for element in root.iter():
            assert element.tag not in (f"{SVG}script", f"{SVG}a", f"{SVG}style", f"{SVG}image")
            assert not [name for name in element.attrib if name.lower().startswith("on") or "href" in name]
        assert "@font-face" not in svg and "url(" not in svg


def test_the_width_follows_the_number_of_days_within_bounds() -> None:
    widths = [int(parsed(bar_chart("A", days(*[1] * n), unit="adds")).get("width") or 0) for n in (1, 30, 90, 366)]
    assert widths[0] < widths[1] <= widths[2] <= widths[3]
    assert widths[3] < 2000  # a year of days stays on a page: narrower bars
    steps = [float(b.get("width") or 0) for b in bars(parsed(bar_chart("A", days(*[1] * 366), unit="adds")))]
    assert min(steps) >= 1


def test_an_empty_series_says_no_data_yet() -> None:
    root = parsed(bar_chart("Searches per day", [], unit="searches"))
    assert root.get("role") == "img"
    assert root.findtext(f"{SVG}desc") == NO_DATA
    assert NO_DATA in texts(root)
    assert all(b.get("data-day") is None for b in bars(root))


def test_a_series_of_zeros_draws_flat_bars_on_an_axis_to_one() -> None:
    root = parsed(bar_chart("A", days(0, 0), unit="adds"))
    assert [float(b.get("height") or "nan") for b in bars(root)] == [0, 0]
    assert {"0", "1"} <= set(texts(root))


@pytest.mark.parametrize(
    ("value", "top"), [(0, 1), (1, 1), (3, 5), (10, 10), (11, 20), (29, 50), (999, 1000), (1001, 2000)]
)
def test_the_value_axis_tops_at_a_round_number(value: int, top: int) -> None:
    assert round_up(value) == top


def test_the_dates_of_a_short_series_never_overlap() -> None:
    for count in range(1, 120):
        root = parsed(bar_chart("Adds", days(*range(count)), unit="adds"))
        xs = [float(t.get("x") or 0) for t in root.iter(f"{SVG}text") if (t.text or "").startswith("2026-")]
        assert xs and all(later - earlier >= 72 for earlier, later in itertools.pairwise(xs)), (count, xs)
        assert xs[-1] + 30 <= float(root.get("width") or 0)  # the last date (about 60 wide, centred) is inside
