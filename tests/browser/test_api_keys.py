"""A project's API keys in a browser: creating one (its value shown once, with a copy button, and working against
the API), the list with last use, revoking one (the API then refuses it); markup in a label shown as text; a READER
sees no key and no write control, and a forged write is refused; keyboard-only creation; accessibility."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import XSS, Console, Person, assert_no_script_ran, csrf_of, sign_in, tab_to


def _keys(served: Console, owner: Person) -> list[dict[str, object]]:
    path = f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/api-keys/"
    found: list[dict[str, object]] = served.api("GET", path, owner).json()
    return found


def _works(served: Console, owner: Person, value: str) -> bool:
    key = Person(owner.user, owner.email, value, owner.org_id, owner.project_id)
    return served.api("GET", "/v1/ping/", key).status_code == 200


def test_an_owner_creates_a_key_shown_once_and_revokes_it(page: Page, context: BrowserContext, served: Console) -> None:
    owner = served.owner()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/keys")
    page.get_by_label("Label").fill("ci runner")
    page.get_by_role("button", name="Create key").click()
    value = page.locator("#new-key-value").inner_text()
    assert value.startswith("m0-") and _works(served, owner, value)
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("() => navigator.clipboard.readText()") == value
    row = page.get_by_role("row").filter(has_text="ci runner")
    expect(row).to_contain_text("never")
    assert any(key["label"] == "ci runner" for key in _keys(served, owner))
    page.goto(served.project_url(owner, "keys"))
    expect(page.get_by_text(value)).to_have_count(0)  # shown once
    row = page.get_by_role("row").filter(has_text="ci runner")
    row.get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("status")).to_have_text("API key revoked.")
    expect(page.get_by_role("row").filter(has_text="ci runner")).to_contain_text("revoked")
    assert not _works(served, owner, value)


def test_the_list_shows_when_a_key_was_last_used(page: Page, served: Console) -> None:
    owner = served.owner()
    assert served.api("GET", "/v1/ping/", owner).status_code == 200
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/keys")
    expect(page.get_by_role("row").filter(has_text="bootstrap")).not_to_contain_text("never")


def test_markup_in_a_label_shows_as_text(page: Page, served: Console) -> None:
    owner = served.owner()
    path = f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/api-keys/"
    assert served.api("POST", path, owner, json={"label": XSS}).status_code == 201
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/keys")
    expect(page.get_by_role("cell", name=XSS)).to_be_visible()
    assert_no_script_ran(page)


def test_a_reader_sees_no_key_and_a_forged_write_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/keys")
    expect(page.get_by_text("Only an OWNER of the project sees")).to_be_visible()
    expect(page.get_by_role("button", name="Create key")).to_have_count(0)
    expect(page.get_by_role("button", name="Revoke")).to_have_count(0)
    token = csrf_of(page)
    before = _keys(served, owner)
    base = served.project_url(owner, "keys")
    assert page.request.post(base, form={"label": "forged", "csrf_token": token}).status == 403
    victim = str(before[0]["id"])
    assert page.request.post(f"{base}/{victim}/revoke", form={"csrf_token": token}).status == 403
    after = _keys(served, owner)
    assert len(after) == len(before) and all(key["revoked_at"] is None for key in after)


def test_creating_a_key_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/keys")
    tab_to(page, page.get_by_label("Label"))
    page.keyboard.type("typed")
    page.keyboard.press("Enter")
    expect(page.locator("#new-key-value")).to_be_visible()
    assert any(key["label"] == "typed" for key in _keys(served, owner))


def test_the_keys_page_is_accessible(page: Page, served: Console, assert_accessible: Callable[[Page], None]) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/keys")
    page.get_by_role("button", name="Create key").click()
    assert_accessible(page)
