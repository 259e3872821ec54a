"""A project's webhooks in a browser: creating one (its secret shown once, with a copy button, and signing what the
receiver gets), the API's refusals shown in the form, editing, the test event and its outcome, rotating the secret,
the delivery log with each attempt and a redelivery, deleting after a confirmation; markup in a name shown as text;
a READER sees the webhooks and their log but no write control, and a forged write is refused; keyboard-only
creation; accessibility. Each effect is checked through the platform API, and each delivery at a real receiver on
loopback (this module's app allows loopback receivers)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect
from pydantic import SecretStr
from standardwebhooks import Webhook as StandardWebhook

from mnemo.api.app import create_app
from mnemo.composition.container import build_container
from mnemo.console.app import create_console
from mnemo.console.visits import ConsoleServices
from mnemo.domain.tenancy import Role
from mnemo.settings import Settings
from tests.browser.conftest import (
    XSS,
    Clock,
    Console,
    Person,
    assert_no_script_ran,
    csrf_of,
    serving_app,
    sign_in,
    tab_to,
)
from tests.conftest import CachedModelRegistry
from tests.support.console_auth_fake import FakeConsoleAuth
from tests.support.waits import seconds
from tests.support.webhook_receiver import Received, Receiver, receiving


@pytest.fixture(scope="module")
def served(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """The console's app, as conftest serves it, with webhooks allowed to reach a receiver on loopback."""
    container = build_container(
        Settings(
            data_dir=tmp_path_factory.mktemp("console-webhooks") / "data",
            jwt_secret=SecretStr("x" * 40),
            argon2_memory_kib=64,
            argon2_time_cost=1,
            webhook_allow_private_urls=True,
            webhook_retry_schedule=(0.2, 0.2),
        ),
        CachedModelRegistry(embedder),
    )
    clock = Clock()
    auth = FakeConsoleAuth(container.platform.tenancy, clock=clock)
    app = create_app(container)
    app.mount("/console", create_console(ConsoleServices(platform=lambda: container.platform, auth=lambda: auth)))
    try:
        with serving_app(app) as url:
            yield Console(url, container, auth, clock)
    finally:
        container.close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as made:
        yield made


def _section(owner: Person) -> str:
    return f"/orgs/{owner.org_id}/projects/{owner.project_id}/webhooks"


def _hooks(served: Console, person: Person) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = served.api("GET", f"/api/v1/webhooks/projects/{person.project_id}/", person).json()
    return found


def _deliveries(served: Console, person: Person, webhook_id: str) -> list[dict[str, Any]]:
    answer = served.api("GET", f"/api/v1/webhooks/{webhook_id}/deliveries/", person)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["results"]
    return found


def _made(served: Console, owner: Person, url: str, name: str = "hook", types: list[str] | None = None) -> str:
    body = {"name": name, "url": url, "event_types": types or ["memory_add"]}
    answer = served.api("POST", f"/api/v1/webhooks/projects/{owner.project_id}/", owner, json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["webhook_id"])


def _verified(received: Received, secret: str) -> dict[str, Any]:
    """The body, once standardwebhooks has checked it was signed with `secret` (it raises otherwise)."""
    body: dict[str, Any] = StandardWebhook(secret).verify(received.raw, received.headers)
    return body


def _create_in_form(page: Page, name: str, url: str, types: tuple[str, ...] = ("memory_add",)) -> None:
    form = page.get_by_role("region", name="Create a webhook")
    form.get_by_label("Name").fill(name)
    form.get_by_label("URL").fill(url)
    for event_type in types:
        form.get_by_label(event_type, exact=True).check()
    form.get_by_role("button", name="Create webhook").click()


def test_an_owner_creates_a_webhook_whose_secret_is_shown_once_and_signs_the_test_event(
    page: Page, context: BrowserContext, served: Console, receiver: Receiver
) -> None:
    # Given an owner on the Webhooks page
    owner = served.owner()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, served, owner, to=_section(owner))
    # When they create a webhook for memory adds and updates
    _create_in_form(page, "orders", receiver.url, ("memory_add", "memory_update"))
    # Then its secret is shown, with a Copy button, and the API has the webhook as asked
    secret = page.locator("#new-secret-value").inner_text()
    assert secret.startswith("whsec_")
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("() => navigator.clipboard.readText()") == secret
    (made,) = _hooks(served, owner)
    assert (made["name"], made["url"], made["event_types"], made["is_active"]) == (
        "orders",
        receiver.url,
        ["memory_add", "memory_update"],
        True,
    )
    # And once the page is left the secret is never shown again
    page.get_by_role("link", name="orders").click()
    expect(page.get_by_role("heading", name="Webhook orders")).to_be_visible()
    expect(page.get_by_text(secret)).to_have_count(0)
    # When they send a test event
    page.get_by_role("button", name="Send a test event").click()
    # Then the page says it was delivered, the receiver got it signed with that secret, and the log shows it
    expect(page.get_by_role("status")).to_contain_text("The test event was delivered: HTTP 200")
    (got,) = receiver.wait_for_count(1)
    assert _verified(got, secret)["event_type"] == "webhook_test"
    row = page.get_by_role("row").filter(has_text="webhook_test")
    expect(row).to_contain_text("delivered")
    expect(row).to_contain_text("HTTP 200")
    expect(row).to_contain_text(" ms")
    assert [d["state"] for d in _deliveries(served, owner, made["webhook_id"])] == ["delivered"]


def test_the_apis_refusals_show_in_the_form_which_keeps_what_was_typed(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_section(owner))
    form = page.get_by_role("region", name="Create a webhook")
    form.get_by_label("Name").fill("kept name")
    form.get_by_label("URL").fill("ftp://example.com/hook")
    form.get_by_role("button", name="Create webhook").click()
    url = page.get_by_role("region", name="Create a webhook").get_by_label("URL")
    expect(url).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#create-url-error")).to_contain_text("Enter a valid URL")
    expect(page.locator("#create-event_types-error")).to_have_text("This list may not be empty.")
    expect(page.get_by_role("region", name="Create a webhook").get_by_label("Name")).to_have_value("kept name")
    expect(url).to_have_value("ftp://example.com/hook")
    assert _hooks(served, owner) == []


def test_an_owner_edits_a_webhook_and_a_refused_edit_changes_nothing(
    page: Page, served: Console, receiver: Receiver
) -> None:
    owner = served.owner()
    hook_id = _made(served, owner, receiver.url, name="before")
    sign_in(page, served, owner, to=f"{_section(owner)}/{hook_id}")
    edit = page.get_by_role("region", name="Edit")
    edit.get_by_label("Name").fill("after")
    edit.get_by_label("memory_add", exact=True).uncheck()
    edit.get_by_label("memory_delete", exact=True).check()
    edit.get_by_label("Enabled").uncheck()
    edit.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Webhook saved.")
    (changed,) = _hooks(served, owner)
    assert (changed["name"], changed["event_types"], changed["is_active"]) == ("after", ["memory_delete"], False)
    edit = page.get_by_role("region", name="Edit")
    edit.get_by_label("Name").fill("")
    edit.get_by_label("Name").evaluate("(input) => input.removeAttribute('required')")
    edit.get_by_role("button", name="Save").click()
    expect(page.locator("#edit-name-error")).to_have_text("This field may not be blank.")
    assert _hooks(served, owner)[0]["name"] == "after"


def test_rotating_the_secret_shows_the_new_one_once_and_it_signs(
    page: Page, served: Console, receiver: Receiver
) -> None:
    owner = served.owner()
    hook_id = _made(served, owner, receiver.url)
    sign_in(page, served, owner, to=f"{_section(owner)}/{hook_id}")
    page.get_by_role("button", name="Rotate the secret").click()
    expect(page.get_by_role("heading", name="The new signing secret")).to_be_visible()
    expect(page.get_by_role("region", name="The new signing secret")).to_contain_text("The old secret keeps signing")
    secret = page.locator("#new-secret-value").inner_text()
    assert secret.startswith("whsec_")
    page.get_by_role("button", name="Send a test event").click()
    expect(page.get_by_role("status")).to_contain_text("delivered")
    expect(page.get_by_text(secret)).to_have_count(0)  # shown once
    (got,) = receiver.wait_for_count(1)
    assert _verified(got, secret)["webhook_id"] == hook_id


def test_a_failed_attempt_is_in_the_log_and_a_redelivery_sends_it_again(page: Page, served: Console) -> None:
    owner = served.owner()
    with receiving(script=[500, 500, 500]) as failing:  # every attempt of the schedule fails; then 200
        hook_id = _made(served, owner, failing.url)
        sign_in(page, served, owner, to=f"{_section(owner)}/{hook_id}")
        page.get_by_role("button", name="Send a test event").click()
        expect(page.get_by_role("status")).to_contain_text("The test event was not delivered: HTTP 500")
        expect(page.get_by_role("status")).to_contain_text("It will be tried again.")
        expect(page.get_by_role("row").filter(has_text="webhook_test")).to_contain_text("HTTP 500")
        (delivery,) = _until(lambda: _deliveries(served, owner, hook_id), lambda found: found[0]["state"] == "dead")
        assert [attempt["status_code"] for attempt in delivery["attempts"]] == [500, 500, 500]
        page.reload()
        row = page.get_by_role("row").filter(has_text="webhook_test")
        expect(row).to_contain_text("dead")
        expect(row.get_by_role("listitem")).to_have_count(3)
        page.get_by_role("button", name="Redeliver delivery 1").click()
        expect(page.get_by_role("status")).to_have_text("Delivery 1 is queued to be sent again.")
        (redelivered,) = failing.wait_for_count(1, timeout=seconds(30))
        assert redelivered.webhook_id == delivery["id"]
        (after,) = _until(lambda: _deliveries(served, owner, hook_id), lambda found: found[0]["state"] == "delivered")
        assert len(after["attempts"]) == 4
        assert after["attempts"][-1]["response"] == "ok"  # what the receiver answered, in the API's log
        page.reload()
        answered = page.get_by_role("row").filter(has_text="webhook_test").get_by_role("listitem").last
        expect(answered.locator("code")).to_have_text("ok")  # and on the page


def _until(read: Callable[[], Any], done: Callable[[Any], bool]) -> Any:
    """What `read` gives once `done` holds for it, polled (a deadline, never a fixed wait)."""
    deadline = time.monotonic() + seconds(30)
    while True:
        found = read()
        if done(found):
            return found
        assert time.monotonic() < deadline, f"still {found}"
        time.sleep(0.05)


def test_an_owner_deletes_a_webhook_after_confirming(page: Page, served: Console, receiver: Receiver) -> None:
    owner = served.owner()
    hook_id = _made(served, owner, receiver.url, name="doomed")
    sign_in(page, served, owner, to=f"{_section(owner)}/{hook_id}")
    page.get_by_role("link", name="Delete the webhook").click()
    expect(page.get_by_role("heading", name="Delete the webhook doomed")).to_be_visible()
    assert len(_hooks(served, owner)) == 1  # not before the confirmation
    page.get_by_role("button", name="Delete the webhook").click()
    expect(page.get_by_role("status")).to_have_text("Webhook doomed deleted, with its delivery log.")
    assert _hooks(served, owner) == []


def test_markup_in_a_name_shows_as_text(page: Page, served: Console, receiver: Receiver) -> None:
    owner = served.owner()
    hook_id = _made(served, owner, receiver.url, name=XSS)
    sign_in(page, served, owner, to=_section(owner))
    expect(page.get_by_role("link", name=XSS)).to_be_visible()
    assert_no_script_ran(page)
    page.goto(served.console + f"{_section(owner)}/{hook_id}")
    expect(page.get_by_role("heading", name=f"Webhook {XSS}")).to_be_visible()
    assert_no_script_ran(page)


def test_a_reader_sees_the_webhooks_and_their_log_and_a_forged_write_is_refused(
    page: Page, served: Console, receiver: Receiver
) -> None:
    owner = served.owner()
    reader = served.member(owner, Role.READER)
    hook_id = _made(served, owner, receiver.url, name="watched")
    sent = served.api("POST", f"/api/v1/webhooks/{hook_id}/test/", owner)
    assert sent.status_code == 200, sent.text
    delivery_id = sent.json()["id"]
    sign_in(page, served, reader, to=f"{_section(owner)}/{hook_id}")
    expect(page.get_by_role("row").filter(has_text="webhook_test")).to_contain_text("HTTP 200")
    for control in ("Send a test event", "Rotate the secret", "Save", "Redeliver delivery 1"):
        expect(page.get_by_role("button", name=control)).to_have_count(0)
    expect(page.get_by_role("link", name="Delete the webhook")).to_have_count(0)
    page.get_by_role("link", name="All webhooks").click()
    expect(page.get_by_role("link", name="watched")).to_be_visible()
    expect(page.get_by_role("button", name="Create webhook")).to_have_count(0)
    token = csrf_of(page)
    base = served.console + _section(owner)
    one = f"{base}/{hook_id}"
    forged: dict[str, str | float | bool] = {
        "name": "forged",
        "url": receiver.url,
        "event_memory_add": "on",
        "is_active": "on",
        "csrf_token": token,
    }
    refused: list[tuple[str, dict[str, str | float | bool]]] = [
        (base, forged),
        (one, forged),
        (f"{one}/delete", {"csrf_token": token}),
        (f"{one}/test", {"csrf_token": token}),
        (f"{one}/rotate-secret", {"csrf_token": token}),
        (f"{one}/deliveries/{delivery_id}/redeliver", {"csrf_token": token}),
    ]
    for path, form in refused:
        assert page.request.post(path, form=form).status == 403, path
    assert page.request.get(f"{one}/delete").status == 403
    (kept,) = _hooks(served, owner)
    assert kept["name"] == "watched"
    assert len(receiver.received) == 1  # no test sent, nothing redelivered
    assert [d["state"] for d in _deliveries(served, owner, hook_id)] == ["delivered"]


def test_someone_outside_the_project_finds_no_webhook(page: Page, served: Console, receiver: Receiver) -> None:
    owner = served.owner()
    stranger = served.owner("stranger")
    hook_id = _made(served, owner, receiver.url)
    sign_in(page, served, stranger)
    assert page.request.get(served.console + _section(owner)).status == 404
    other = served.console + _section(stranger) + f"/{hook_id}"  # their own project, another's webhook
    assert page.request.get(other).status == 404
    assert page.request.post(other + "/delete", form={"csrf_token": csrf_of(page)}).status == 404
    assert len(_hooks(served, owner)) == 1


def test_creating_a_webhook_with_the_keyboard_alone(page: Page, served: Console, receiver: Receiver) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_section(owner))
    tab_to(page, page.get_by_label("Name"))
    page.keyboard.type("typed")
    page.keyboard.press("Tab")
    page.keyboard.type(receiver.url)
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # the first event type: memory_add
    tab_to(page, page.get_by_role("button", name="Create webhook"))
    page.keyboard.press("Enter")
    expect(page.locator("#new-secret-value")).to_be_visible()
    (made,) = _hooks(served, owner)
    assert (made["name"], made["event_types"]) == ("typed", ["memory_add"])


def test_the_webhook_pages_are_accessible(
    page: Page, served: Console, receiver: Receiver, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=_section(owner))
    _create_in_form(page, "checked", receiver.url)
    assert_accessible(page)
    page.get_by_role("link", name="checked").click()
    page.get_by_role("button", name="Send a test event").click()
    expect(page.get_by_role("status")).to_contain_text("delivered")
    assert_accessible(page)
    page.goto(served.console + _section(owner))
    _create_in_form(page, "refused", "ftp://example.com/", ())  # the form with the API's refusals in it
    expect(page.locator("#create-url-error")).to_be_visible()
    assert_accessible(page)
