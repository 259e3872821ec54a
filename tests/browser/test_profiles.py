"""A project's Profiles section in a browser: the settings saved from the schema editor and read back through the
API; a schema the API refuses refused with the API's own words; a user's profile with the memories behind each
property, linked to their pages; generating one now and following the job; markup in a memory and in a schema
shown as text; a READER sees no write control and a forged write is refused; keyboard-only use; accessibility."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import (
    XSS,
    Console,
    Person,
    add_memory,
    assert_no_script_ran,
    csrf_of,
    sign_in,
    tab_to,
)
from tests.support.waits import seconds

SCHEMA = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "Where the user lives or is based."},
        "hobbies": {
            "type": "array",
            "items": {"type": "string"},
            "description": f"Hobbies and things the user enjoys {XSS}",
        },
    },
}


def _profiles_url(owner: Person) -> str:
    return f"/orgs/{owner.org_id}/projects/{owner.project_id}/profiles"


def _settings(served: Console, person: Person) -> dict[str, Any]:
    found: dict[str, Any] = served.api("GET", "/v2/profiles/settings/", person).json()
    return found


def _enable(served: Console, owner: Person) -> None:
    answer = served.api("POST", "/v2/profiles/settings/", owner, json={"enabled": True})
    assert answer.status_code == 200, answer.text


def _job_ended(served: Console, owner: Person, job_id: str) -> dict[str, Any]:
    """The job once it has ended, polled through the API (a deadline, never a fixed wait)."""
    deadline = time.monotonic() + seconds(60)
    while True:
        job: dict[str, Any] = served.api("GET", f"/v2/profiles/jobs/{job_id}/", owner).json()["job"]
        if job["status"] in ("succeeded", "failed"):
            return job
        assert time.monotonic() < deadline, f"profile job {job_id} still {job['status']}"
        time.sleep(0.05)


def test_an_owner_saves_the_settings_from_the_schema_editor(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_profiles_url(owner))
    page.get_by_label("Enabled").check()
    page.get_by_label("Schema").fill(json.dumps(SCHEMA))
    page.get_by_label("Custom instructions").fill("Keep it short.")
    page.get_by_label("Minimum memories").fill("2")
    page.get_by_role("button", name="Save profile settings").click()
    expect(page.get_by_role("status")).to_have_text("Profile settings saved.")
    stored = _settings(served, owner)
    assert stored["enabled"] is True
    assert stored["entities"]["user"] == {"schema": SCHEMA, "custom_instructions": "Keep it short.", "min_memories": 2}
    expect(page.get_by_label("Schema")).to_have_value(json.dumps(SCHEMA, indent=2, ensure_ascii=False))
    assert_no_script_ran(page)
    page.get_by_label("Schema").fill("")
    page.get_by_label("Custom instructions").fill("")
    page.get_by_label("Enabled").uncheck()
    page.get_by_role("button", name="Save profile settings").click()
    expect(page.get_by_role("status")).to_have_text("Profile settings saved.")
    stored = _settings(served, owner)
    assert stored["enabled"] is False and stored["entities"]["user"]["custom_instructions"] is None
    assert "location" in stored["entities"]["user"]["schema"]["properties"]  # the default schema again
    assert stored["entities"]["user"]["min_memories"] == 2


def test_a_schema_as_large_as_the_api_takes_is_saved_from_the_editor(page: Page, served: Console) -> None:
    owner = served.owner()
    words = "the place, the season and the people around it " * 10
    large = {
        "type": "object",
        "properties": {f"p{n}": {"type": "string", "description": f"{n}: {words}"} for n in range(90)},
    }
    assert len(json.dumps(large, indent=2)) > 20_000 and len(json.dumps(large).encode()) < 64_000
    sign_in(page, served, owner, to=_profiles_url(owner))
    page.get_by_label("Schema").fill(json.dumps(large, indent=2))
    page.get_by_role("button", name="Save profile settings").click()
    expect(page.get_by_role("status")).to_have_text("Profile settings saved.")
    assert _settings(served, owner)["entities"]["user"]["schema"] == large
    page.get_by_role("button", name="Save profile settings").click()  # as shown again, indented: saved again
    expect(page.get_by_role("status")).to_have_text("Profile settings saved.")


def test_a_schema_the_api_refuses_is_refused_with_the_apis_words(page: Page, served: Console) -> None:
    owner = served.owner()
    undescribed = {"type": "object", "properties": {"city": {"type": "string"}}}
    wrong_type = {"type": "object", "properties": {"city": {"type": "nonsense", "description": "A city."}}}
    sign_in(page, served, owner, to=_profiles_url(owner))
    for schema in (undescribed, wrong_type):
        api = served.api("POST", "/v2/profiles/settings/", owner, json={"entities": {"user": {"schema": schema}}})
        assert api.status_code == 400, api.text
        page.get_by_label("Schema").fill(json.dumps(schema))
        page.get_by_role("button", name="Save profile settings").click()
        expect(page.get_by_role("alert")).to_have_text(api.json()["detail"])
        expect(page.get_by_label("Schema")).to_have_value(json.dumps(schema))  # kept as typed, to correct
    page.get_by_label("Schema").fill('{"type": "object",')
    page.get_by_role("button", name="Save profile settings").click()
    expect(page.get_by_role("alert")).to_contain_text("The schema is not valid JSON")
    forged = page.request.post(
        served.console + _profiles_url(owner) + "/settings", form={"min_memories": "0", "csrf_token": csrf_of(page)}
    )
    assert forged.status == 400
    assert "entities.user.min_memories: Input should be greater than or equal to 1" in forged.text()
    stored = _settings(served, owner)["entities"]["user"]
    assert stored["min_memories"] == 1 and "city" not in stored["schema"]["properties"]


def test_a_profile_shows_the_memories_behind_each_property_and_generates_now(page: Page, served: Console) -> None:
    owner = served.owner()
    lisbon = add_memory(served, owner, "I live in Lisbon since last spring", user_id="ana")
    _enable(served, owner)
    sign_in(page, served, owner, to=_profiles_url(owner))
    page.get_by_label("User id to generate now").fill("ana")
    page.get_by_role("button", name="Generate profile").click()
    expect(page.get_by_role("status")).to_have_text("Generation queued.")
    job_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    assert _job_ended(served, owner, job_id)["status"] == "succeeded"
    page.reload()
    expect(page.locator("#job-status")).to_have_text("succeeded")
    page.get_by_role("link", name="ana", exact=True).click()
    api = served.api("GET", "/v2/entities/user/ana/profile/", owner).json()
    assert api["status"] == "succeeded" and api["profile"]["location"] == "Lisbon"
    assert api["sources"]["location"] == [lisbon]
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="location"))
    expect(row).to_contain_text("Lisbon")
    row.get_by_role("link", name="I live in Lisbon since last spring").click()
    expect(page.get_by_role("heading", name="A memory")).to_be_visible()
    assert page.url.endswith(f"/memories/{lisbon}")


def test_markup_in_a_memory_behind_a_profile_shows_as_text(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, f"My hobbies are painting and {XSS}", user_id="bo")
    served.api(
        "POST", "/v2/profiles/settings/", owner, json={"enabled": True, "entities": {"user": {"schema": SCHEMA}}}
    )
    job = served.api("POST", "/v2/profiles/jobs/", owner, json={"operation": "trigger", "entity_id": "bo"}).json()
    assert _job_ended(served, owner, job["job_id"])["status"] == "succeeded"
    assert served.api("GET", "/v2/entities/user/bo/profile/", owner).json()["profile"]["hobbies"]
    sign_in(page, served, owner, to=f"{_profiles_url(owner)}/user?user_id=bo")
    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="hobbies"))
    expect(row.get_by_role("link")).to_contain_text("<script>window.__xss=1</script>")
    assert_no_script_ran(page)


def test_an_unknown_user_and_a_bad_id_are_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_profiles_url(owner))
    page.goto(f"{served.console}{_profiles_url(owner)}/user?user_id=nobody")
    expect(page.get_by_role("main")).to_contain_text("Entity not found.")
    response = page.goto(f"{served.console}{_profiles_url(owner)}/user?user_id=a%20b")
    assert response is not None and response.status == 400


def test_a_reader_sees_no_write_control_and_a_forged_write_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, "I live in Porto", user_id="cy")
    _enable(served, owner)
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=_profiles_url(owner))
    expect(page.get_by_label("Enabled")).to_be_checked()
    expect(page.get_by_role("button", name="Save profile settings")).to_have_count(0)
    expect(page.get_by_role("button", name="Generate profile")).to_have_count(0)
    page.get_by_label("User id", exact=True).fill("cy")
    page.get_by_role("button", name="Show profile").click()
    expect(page.get_by_role("heading", name="Profile of cy")).to_be_visible()
    expect(page.get_by_role("button", name="Generate now")).to_have_count(0)
    token = csrf_of(page)
    base = served.console + _profiles_url(owner)
    for path, form in (("/settings", {"enabled": "on", "min_memories": "5"}), ("/generate", {"user_id": "cy"})):
        assert page.request.post(base + path, form={**form, "csrf_token": token}).status == 403, path
    assert _settings(served, owner)["entities"]["user"]["min_memories"] == 1


def test_saving_the_settings_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_profiles_url(owner))
    tab_to(page, page.get_by_label("Enabled"))
    page.keyboard.press("Space")
    tab_to(page, page.get_by_label("Minimum memories"))
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    tab_to(page, page.get_by_role("button", name="Save profile settings"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Profile settings saved.")
    stored = _settings(served, owner)
    assert stored["enabled"] is True and stored["entities"]["user"]["min_memories"] == 3


def test_the_profile_pages_are_accessible(
    page: Page, served: Console, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    add_memory(served, owner, "I live in Oslo", user_id="di")
    _enable(served, owner)
    job = served.api("POST", "/v2/profiles/jobs/", owner, json={"operation": "trigger", "entity_id": "di"}).json()
    _job_ended(served, owner, job["job_id"])
    sign_in(page, served, owner, to=_profiles_url(owner))
    assert_accessible(page)
    page.goto(f"{served.console}{_profiles_url(owner)}/user?user_id=di")
    assert_accessible(page)
    page.goto(f"{served.console}{_profiles_url(owner)}/jobs/{job['job_id']}")
    assert_accessible(page)
