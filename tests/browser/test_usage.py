"""A project's Usage page in a browser: a chart per figure (adds, searches, gets, LLM calls, LLM tokens) with a bar
per day, whose values are the usage route's, the memories now and the totals; the 7, 30 and 90 day choices; markup
in the project's name shown as text in the charts; a READER reads it too and a day count off the choices is
refused; keyboard-only choice of the days; accessibility."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import XSS, Console, Person, add_memory, assert_no_script_ran, sign_in, tab_to

CHARTS = ("Adds per day", "Searches per day", "Gets per day", "LLM calls per day", "LLM tokens per day")


def _section(owner: Person) -> str:
    return f"/orgs/{owner.org_id}/projects/{owner.project_id}/usage"


def _usage(served: Console, person: Person, days: int) -> dict[str, Any]:
    path = f"/api/v1/orgs/organizations/{person.org_id}/projects/{person.project_id}/usage/?days={days}"
    answer = served.api("GET", path, person)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def _bars(page: Page, chart: str) -> dict[str, int]:
    """The chart's bars: day -> value."""
    region = page.get_by_role("region", name=chart)
    found: dict[str, int] = {}
    for rect in region.locator("rect[data-day]").all():
        found[str(rect.get_attribute("data-day"))] = int(str(rect.get_attribute("data-value")))
    return found


def test_the_charts_and_totals_are_the_usage_routes(page: Page, served: Console) -> None:
    # Given a project that added two memories and searched three times today
    owner = served.owner()
    add_memory(served, owner, "Nadia likes tea", user_id="nadia")
    add_memory(served, owner, "Nadia lives in Oslo", user_id="nadia")
    for query in ("tea", "oslo", "music"):
        found = served.api(
            "POST", "/v2/memories/search/", owner, json={"query": query, "filters": {"user_id": "nadia"}}
        )
        assert found.status_code == 200, found.text
    # When its owner opens the Usage page
    sign_in(page, served, owner, to=_section(owner))
    # Then each figure is a chart with a bar a day of the last 30, valued as the usage route says
    report = _usage(served, owner, 30)
    for chart in CHARTS:
        expect(page.get_by_role("img", name=chart, exact=False)).to_have_count(1)
    adds, searches = _bars(page, "Adds per day"), _bars(page, "Searches per day")
    assert len(adds) == 30 and len(searches) == 30
    assert adds == {day["day"]: day["adds"] for day in report["days"]}
    assert searches == {day["day"]: day["searches"] for day in report["days"]}
    assert adds[report["last_day"]] == 2 and searches[report["last_day"]] == 3
    # And the totals: the memories now and the counts since the project was made
    totals = page.get_by_role("table", name="Now and since the project was made")
    expect(totals.get_by_role("row", name="Memories now")).to_contain_text(str(report["total_memories"]))
    expect(totals.get_by_role("row", name="Adds")).to_contain_text(str(report["totals"]["adds"]))
    expect(totals.get_by_role("row", name="Searches")).to_contain_text(str(report["totals"]["searches"]))
    assert report["total_memories"] == 2
    # When they choose the last 7 days
    page.get_by_role("link", name="7 days").click()
    # Then every chart has 7 bars
    expect(page.get_by_role("link", name="7 days")).to_have_attribute("aria-current", "page")
    for chart in CHARTS:
        expect(page.get_by_role("region", name=chart).locator("rect[data-day]")).to_have_count(7)
    page.get_by_role("link", name="90 days").click()
    expect(page.get_by_role("region", name="Gets per day").locator("rect[data-day]")).to_have_count(90)


def test_markup_in_the_projects_name_shows_as_text_in_the_charts(page: Page, served: Console) -> None:
    owner = served.owner()
    path = f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/"
    assert served.api("PATCH", path, owner, json={"name": XSS}).status_code == 200
    sign_in(page, served, owner, to=_section(owner))
    expect(page.get_by_role("img", name=f"Adds per day — {XSS}")).to_be_visible()
    assert_no_script_ran(page)


def test_a_reader_reads_the_usage_and_days_off_the_choices_are_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=_section(owner))
    expect(page.get_by_role("heading", name="Usage")).to_be_visible()
    expect(page.get_by_role("img", name="Searches per day", exact=False)).to_be_visible()
    expect(page.get_by_role("button")).to_have_count(1)  # only Sign out: the page has no write control
    for days in ("5", "366", "x"):
        refused = page.request.get(served.console + _section(owner) + f"?days={days}")
        assert refused.status == 400 and "days is one of 7, 30, 90" in refused.text()
    stranger = served.owner("stranger")
    page.context.clear_cookies()
    sign_in(page, served, stranger)
    assert page.request.get(served.console + _section(owner)).status == 404


def test_choosing_the_days_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_section(owner))
    tab_to(page, page.get_by_role("link", name="7 days"))
    page.keyboard.press("Enter")
    expect(page).to_have_url(served.project_url(owner, "usage") + "?days=7")
    expect(page.get_by_role("region", name="Adds per day").locator("rect[data-day]")).to_have_count(7)


def test_the_usage_page_is_accessible(page: Page, served: Console, assert_accessible: Callable[[Page], None]) -> None:
    owner = served.owner()
    add_memory(served, owner, "Ivo plays chess", user_id="ivo")
    sign_in(page, served, owner, to=_section(owner))
    assert_accessible(page)
