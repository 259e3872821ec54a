"""A project's settings in a browser: every field saved and read back through the API, a refused value shown with
its reason, markup in the instructions shown as text, a READER sees the settings without a way to save them and a
forged save is refused, keyboard-only saving, accessibility."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import XSS, Console, Person, assert_no_script_ran, csrf_of, sign_in, tab_to


def _settings_url(owner: Person) -> str:
    return f"/orgs/{owner.org_id}/projects/{owner.project_id}/settings"


def _project(served: Console, owner: Person) -> dict[str, Any]:
    path = f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/"
    found: dict[str, Any] = served.api("GET", path, owner).json()
    return found


def test_an_owner_saves_every_setting(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_settings_url(owner))
    page.get_by_label("Description", exact=True).fill("Our support bot")
    page.get_by_label("Custom instructions", exact=True).fill("Keep only food preferences.")
    page.get_by_label("Instructions for an agent's own memories").fill("Keep the agent's style.")
    page.get_by_label("Custom categories").fill("food: What they eat\ntravel: Trips")
    page.get_by_label("Decay").check()
    page.get_by_label("Multilingual").check()
    page.get_by_label("Memory depth (stored)").fill("deep")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("status")).to_have_text("Settings saved.")
    project = _project(served, owner)
    assert project["description"] == "Our support bot"
    assert project["custom_instructions"] == "Keep only food preferences."
    assert project["custom_categories"] == [{"food": "What they eat"}, {"travel": "Trips"}]
    assert project["decay"] is True and project["multilingual"] is True
    assert project["memory_depth"] == "deep"
    expect(page.get_by_label("Custom categories")).to_have_value("food: What they eat\ntravel: Trips")
    page.get_by_label("Custom instructions", exact=True).fill("")
    page.get_by_label("Decay").uncheck()
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("status")).to_have_text("Settings saved.")
    project = _project(served, owner)
    assert project["custom_instructions"] is None and project["decay"] is False


def test_a_malformed_category_is_refused_with_its_reason(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_settings_url(owner))
    page.get_by_label("Custom categories").fill("no colon here")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("alert")).to_contain_text("Write each category as `name: description`")
    assert _project(served, owner)["custom_categories"] == []


def test_markup_in_the_instructions_shows_as_text(page: Page, served: Console) -> None:
    owner = served.owner()
    path = f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/"
    served.api("PATCH", path, owner, json={"custom_instructions": XSS, "custom_categories": [{"x": XSS}]})
    sign_in(page, served, owner, to=_settings_url(owner))
    expect(page.get_by_label("Custom instructions", exact=True)).to_have_value(XSS)
    expect(page.get_by_label("Custom categories")).to_have_value(f"x: {XSS}")
    assert_no_script_ran(page)


def test_a_reader_cannot_save_and_a_forged_save_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=_settings_url(owner))
    expect(page.get_by_text("Only an OWNER changes the settings")).to_be_visible()
    expect(page.get_by_role("button", name="Save settings")).to_have_count(0)
    forged = page.request.post(
        served.console + _settings_url(owner), form={"description": "forged", "csrf_token": csrf_of(page)}
    )
    assert forged.status == 403
    assert _project(served, owner)["description"] == ""


def test_saving_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_settings_url(owner))
    tab_to(page, page.get_by_label("Decay"))
    page.keyboard.press("Space")
    tab_to(page, page.get_by_role("button", name="Save settings"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Settings saved.")
    assert _project(served, owner)["decay"] is True


def test_the_settings_page_is_accessible(
    page: Page, served: Console, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_settings_url(owner))
    assert_accessible(page)
