"""A project's Dream section in a browser: the configuration and the entitlements read back through the API;
Synthesis refused with the reason when there is no LLM; a run now (with a scripted LLM on a loopback server)
followed to its end, each change it made shown and linked to the memory's page; markup in a synthesized memory
shown as text; a READER sees no write control and a forged write is refused; keyboard-only use; accessibility."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from mnemo.console.dream_runs import MAX_RUNS
from mnemo.domain.tenancy import Role
from mnemo.services.platform.tenancy.events import DREAM
from tests.browser.conftest import XSS, Console, Person, assert_no_script_ran, csrf_of, sign_in, tab_to
from tests.support.openai_server import OpenAIServer
from tests.support.waits import seconds

PARIS = "Lives in Paris"
LISBON = "Moved to Lisbon in May"
RUNS = "Goes running at 6 am every day"
MEETINGS = "Books meetings before 8 am"
FILLER = [f"Knows fact number {n} about the sea" for n in range(16)]
TEXTS = [PARIS, LISBON, RUNS, MEETINGS, *FILLER]  # 20: the default minimum of a user reflected on
PATTERN = f"Is an early riser {XSS}"
LISTED = re.compile(r'^(m\d+) \[\d{4}-\d\d-\d\d\](?: \[synthesized\])? (".*")$', re.MULTILINE)


def _dream_url(owner: Person) -> str:
    return f"/orgs/{owner.org_id}/projects/{owner.project_id}/dream"


def _config_path(owner: Person) -> str:
    return f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/dream/config/"


def _config(served: Console, person: Person) -> dict[str, Any]:
    found: dict[str, Any] = served.api("GET", _config_path(person), person).json()
    return found


def _plan(request: dict[str, Any]) -> str:
    """The LLM's answer: a pattern drawn from two memories and an outdated fact superseded."""
    prompt = request["messages"][0]["content"]
    refs = {json.loads(text): ref for ref, text in LISTED.findall(prompt)}
    return json.dumps(
        {
            "synthesized": [{"text": PATTERN, "sources": [refs[RUNS], refs[MEETINGS]]}],
            "merge": [],
            "supersede": [{"outdated": refs[PARIS], "current": refs[LISBON]}],
        }
    )


@pytest.fixture
def llm(served: Console) -> Iterator[OpenAIServer]:
    """The deployment's LLM for one test: scripted replies on a loopback server; no LLM again afterwards."""
    with OpenAIServer(embedding_dims=64) as fake:
        config = {"provider": "openai", "config": {"base_url": fake.base_url, "api_key": "sk-test", "model": "m"}}
        served.container.configuration.update({"llm": config})
        try:
            yield fake
        finally:
            served.container.configuration.update({"llm": None})


def _memories(served: Console, owner: Person, user_id: str) -> dict[str, str]:
    """TEXTS stored as said for the user, by text → memory id."""
    body = {"messages": [{"role": "user", "content": t} for t in TEXTS], "user_id": user_id, "infer": False}
    answer = served.api("POST", "/v3/memories/add/", owner, json=body)
    assert answer.status_code == 200, answer.text
    return {r["data"]["memory"]: r["id"] for r in answer.json()["results"]}


def _ended(served: Console, owner: Person, event_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + seconds(60)
    while True:
        event: dict[str, Any] = served.api("GET", f"/v1/event/{event_id}/", owner).json()
        if event["status"] not in ("PENDING", "RUNNING"):
            return event
        assert time.monotonic() < deadline, f"dream run {event_id} still {event['status']}"
        time.sleep(0.05)


def test_an_owner_turns_synthesis_on_runs_dream_and_sees_each_change(
    page: Page, served: Console, llm: OpenAIServer
) -> None:
    owner = served.owner()
    ids = _memories(served, owner, "alice")
    llm.reply(_plan)
    sign_in(page, served, owner, to=_dream_url(owner))
    expect(page.get_by_role("region", name="Entitlements")).not_to_contain_text("unavailable")
    page.get_by_label("Synthesis on").check()
    page.get_by_label("Mode").select_option("manual")
    page.get_by_role("button", name="Save Dream configuration").click()
    expect(page.get_by_role("status")).to_have_text("Dream configuration saved.")
    config = _config(served, owner)["config"]
    assert config["reflection_enabled"] is True and config["reflection_mode"] == "manual"
    page.get_by_label("User id").fill("alice")
    page.get_by_role("button", name="Run Dream now").click()
    expect(page.get_by_role("status")).to_contain_text("Dream run:")
    run_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    event = _ended(served, owner, run_id)
    assert event["status"] == "SUCCEEDED" and event["payload"]["user_ids"] == ["alice"]
    page.reload()
    user = page.get_by_role("region", name="User alice: DONE")
    expect(user).to_contain_text("20 memories read.")
    superseded = user.get_by_role("row").filter(has_text="supersede")
    expect(superseded.get_by_role("link", name=ids[LISBON])).to_be_visible()
    synthesized = user.get_by_role("row").filter(has_text="synthesize")
    expect(synthesized.get_by_role("link").first).to_have_text(PATTERN)
    assert_no_script_ran(page)
    superseded.get_by_role("link", name=PARIS).click()
    expect(page.get_by_role("heading", name="A memory")).to_be_visible()
    assert page.url.endswith(f"/memories/{ids[PARIS]}")
    expect(page.get_by_text("superseded")).to_be_visible()
    page.goto(served.console + _dream_url(owner))
    row = page.get_by_role("row").filter(has=page.get_by_role("link", name=run_id[:8]))
    expect(row).to_contain_text("SUCCEEDED")
    expect(row).to_contain_text("alice")


def test_without_an_llm_synthesis_is_refused_with_the_reason(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_dream_url(owner))
    expect(page.get_by_role("region", name="Entitlements")).to_contain_text("Synthesis needs an LLM")
    page.get_by_label("Synthesis on").check()
    page.get_by_role("button", name="Save Dream configuration").click()
    expect(page.get_by_role("alert")).to_contain_text("Synthesis cannot be turned on: Synthesis needs an LLM")
    page.get_by_role("button", name="Run Dream now").click()
    expect(page.get_by_role("alert")).to_contain_text("No Dream run: Synthesis needs an LLM")
    assert _config(served, owner)["config"]["reflection_enabled"] is False


def test_a_reader_sees_no_write_control_and_a_forged_write_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=_dream_url(owner))
    expect(page.get_by_label("Synthesis on")).to_be_disabled()
    expect(page.get_by_role("button", name="Save Dream configuration")).to_have_count(0)
    expect(page.get_by_role("button", name="Run Dream now")).to_have_count(0)
    token = csrf_of(page)
    base = served.console + _dream_url(owner)
    for path, form in (("/config", {"reflection_mode": "manual"}), ("/run", {"user_id": "alice"})):
        assert page.request.post(base + path, form={**form, "csrf_token": token}).status == 403, path
    assert _config(served, owner)["config"]["reflection_mode"] == "batch"


def test_older_runs_are_reached_page_by_page(page: Page, served: Console) -> None:
    owner = served.owner()
    platform = served.container.platform
    assert platform is not None
    made = [
        platform.events.record(owner.project_id, DREAM, {"trigger": "schedule", "user_ids": [f"u{n}"]}, [])
        for n in range(MAX_RUNS + 2)
    ]
    sign_in(page, served, owner, to=_dream_url(owner))
    runs = page.get_by_role("table").filter(has_text="Past runs").locator("tbody tr")
    expect(runs).to_have_count(MAX_RUNS)
    expect(runs.first).to_contain_text(made[-1][:8])
    expect(page.get_by_role("link", name="Newest runs")).to_have_count(0)
    page.get_by_role("link", name="Older runs").click()
    expect(runs).to_have_count(2)
    expect(runs.nth(0)).to_contain_text(made[1][:8])
    expect(runs.nth(1)).to_contain_text(made[0][:8])
    expect(page.get_by_role("link", name="Older runs")).to_have_count(0)
    page.get_by_role("link", name="Newest runs").click()
    expect(runs).to_have_count(MAX_RUNS)
    response = page.goto(f"{served.console}{_dream_url(owner)}?from=-1")
    assert response is not None and response.status == 400


def test_a_run_of_another_kind_of_event_is_not_a_dream_run(page: Page, served: Console) -> None:
    owner = served.owner()
    added = served.api("POST", "/v3/memories/add/", owner, json={"messages": "Tess likes tea", "user_id": "tess"})
    sign_in(page, served, owner, to=_dream_url(owner))
    response = page.goto(f"{served.console}{_dream_url(owner)}/runs/{added.json()['event_id']}")
    assert response is not None and response.status == 404


def test_configuring_dream_with_the_keyboard_alone(page: Page, served: Console, llm: OpenAIServer) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_dream_url(owner))
    tab_to(page, page.get_by_label("Synthesis on"))
    page.keyboard.press("Space")
    tab_to(page, page.get_by_role("button", name="Save Dream configuration"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Dream configuration saved.")
    assert _config(served, owner)["config"]["reflection_enabled"] is True


def test_the_dream_pages_are_accessible(
    page: Page, served: Console, llm: OpenAIServer, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    _memories(served, owner, "bo")
    llm.reply(_plan)
    served.api("PATCH", _config_path(owner), owner, json={"reflection_enabled": True})
    queued = served.api(
        "POST", f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/dream/run/", owner
    ).json()
    _ended(served, owner, queued["event_id"])
    sign_in(page, served, owner, to=_dream_url(owner))
    assert_accessible(page)
    page.goto(f"{served.console}{_dream_url(owner)}/runs/{queued['event_id']}")
    assert_accessible(page)
