"""A project's events in a browser: adding a memory and importing many (each a job followed to its end through
the API), the list and one event's results, cancelling a pending job and a running import; markup in an import's
content shown as text; a READER sees no write control and a forged write is refused; keyboard-only adding;
accessibility."""

from __future__ import annotations

import json
from collections.abc import Callable

from playwright.sync_api import Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import (
    XSS,
    Console,
    Person,
    add_memory,
    assert_no_script_ran,
    csrf_of,
    event_status,
    sign_in,
    tab_to,
)


def _events_url(owner: Person) -> str:
    return f"/orgs/{owner.org_id}/projects/{owner.project_id}/events"


def _event_id(page: Page) -> str:
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def _ended(status: str) -> bool:
    return status not in ("PENDING", "RUNNING")


def test_an_owner_adds_a_memory_and_follows_its_event(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_events_url(owner))
    page.get_by_label("What the user said").fill("Quinn is learning Italian")
    page.get_by_label("User", exact=True).fill("quinn")
    page.get_by_label("Infer: extract").uncheck()
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.get_by_role("status")).to_have_text("Add: SUCCEEDED.")
    expect(page.get_by_role("region", name="Results")).to_contain_text("Quinn is learning Italian")
    memories = served.api("GET", "/v1/memories/?user_id=quinn", owner).json()
    assert [memory["memory"] for memory in memories] == ["Quinn is learning Italian"]
    page.get_by_role("link", name="All events").click()
    expect(page.get_by_role("row").filter(has_text="ADD")).to_contain_text("SUCCEEDED")


def test_an_owner_imports_memories(page: Page, served: Console) -> None:
    owner = served.owner()
    items = [{"memory": "Rosa grows tomatoes"}, {"memory": XSS}]
    sign_in(page, served, owner, to=_events_url(owner))
    page.get_by_label("Items (JSON").fill(json.dumps(items))
    page.get_by_label("User of the items that name none").fill("rosa")
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_role("status")).to_contain_text("Import: PENDING.")
    assert event_status(served, owner, _event_id(page), _ended) == "SUCCEEDED"
    page.reload()
    expect(page.get_by_text("SUCCEEDED", exact=True)).to_be_visible()
    expect(page.get_by_role("region", name="What was asked")).to_contain_text("<script>window.__xss=1</script>")
    assert_no_script_ran(page)
    memories = served.api("GET", "/v1/memories/?user_id=rosa", owner).json()
    assert sorted(memory["memory"] for memory in memories) == sorted([XSS, "Rosa grows tomatoes"])


def test_a_malformed_import_is_refused_with_its_reason(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_events_url(owner))
    page.get_by_label("Items (JSON").fill("not json")
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_role("alert")).to_contain_text("The items are a JSON list")


def test_an_owner_cancels_a_pending_job_and_a_running_import(page: Page, served: Console) -> None:
    owner = served.owner()
    facts = [{"memory": f"Sam noted fact {number}", "user_id": "sam"} for number in range(1000)]
    blocker = served.api("POST", "/v1/memories/import/", owner, json={"items": facts, "infer": False}).json()
    event_status(served, owner, blocker["event_id"], lambda status: status != "PENDING")
    queued = served.api(
        "POST", "/v3/memories/add/", owner, json={"messages": "Tess likes tea", "user_id": "tess"}
    ).json()
    sign_in(page, served, owner, to=f"{_events_url(owner)}/{queued['event_id']}")
    page.get_by_role("button", name="Cancel this job").click()
    expect(page.get_by_role("status")).to_have_text("Cancelled.")
    expect(page.get_by_text("CANCELLED", exact=True)).to_be_visible()
    page.goto(f"{served.console}{_events_url(owner)}/{blocker['event_id']}")
    page.get_by_role("button", name="Cancel this job").click()
    expect(page.get_by_role("status")).to_have_text("Cancelled.")
    assert event_status(served, owner, blocker["event_id"], _ended) == "CANCELLED"
    assert event_status(served, owner, queued["event_id"], _ended) == "CANCELLED"
    assert served.api("GET", "/v1/memories/?user_id=tess", owner).json() == []


def test_a_reader_sees_no_write_control_and_a_forged_write_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, "Uma swims", user_id="uma")
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=_events_url(owner))
    expect(page.get_by_role("row").filter(has_text="ADD")).to_be_visible()
    expect(page.get_by_role("button", name="Add", exact=True)).to_have_count(0)
    expect(page.get_by_role("button", name="Import")).to_have_count(0)
    token = csrf_of(page)
    base = served.console + _events_url(owner)
    for path, form in (
        ("/add", {"text": "forged", "user_id": "uma"}),
        ("/import", {"items": '[{"memory": "forged", "user_id": "uma"}]'}),
    ):
        assert page.request.post(base + path, form={**form, "csrf_token": token}).status == 403, path
    assert len(served.api("GET", "/v1/memories/?user_id=uma", owner).json()) == 1


def test_adding_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_events_url(owner))
    tab_to(page, page.get_by_label("What the user said"))
    page.keyboard.type("Vic paints")
    tab_to(page, page.get_by_label("User", exact=True))
    page.keyboard.type("vic")
    tab_to(page, page.get_by_label("Infer: extract"))
    page.keyboard.press("Space")
    tab_to(page, page.get_by_role("button", name="Add", exact=True))
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Add: SUCCEEDED.")


def test_the_event_pages_are_accessible(page: Page, served: Console, assert_accessible: Callable[[Page], None]) -> None:
    owner = served.owner()
    add_memory(served, owner, "Wes climbs", user_id="wes")
    sign_in(page, served, owner, to=_events_url(owner))
    assert_accessible(page)
    page.get_by_role("row").nth(1).get_by_role("link").click()
    assert_accessible(page)
