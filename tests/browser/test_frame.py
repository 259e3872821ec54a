"""The console's frame in a browser: signing in and out, the password change, accepting an invitation, the CSRF
check, a session's expiry, the security headers, keyboard-only sign-in, and the accessibility of the sign-in
pages."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from playwright.sync_api import Browser, Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import PASSWORD, XSS, Console, assert_no_script_ran, csrf_of, sign_in, tab_to


def test_a_person_signs_in_sees_the_navigation_and_signs_out(page: Page, served: Console) -> None:
    # Given an owner of a project
    owner = served.owner()
    # When they sign in and open their project
    sign_in(page, served, owner)
    page.get_by_role("link", name="Default Project").first.click()
    # Then the navigation names every section
    sections = page.get_by_role("navigation", name="Project sections")
    for label in (
        "Memories",
        "Entities",
        "Events",
        "API keys",
        "Members",
        "Webhooks",
        "Profiles",
        "Dream",
        "Usage",
        "Settings",
    ):
        expect(sections.get_by_role("link", name=label, exact=True)).to_be_visible()
    # And signing out ends the session: the console asks to sign in again
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.goto(served.console + "/")
    expect(page).to_have_url(served.console + "/sign-in?next=/")


def test_a_wrong_password_is_refused_with_one_message(page: Page, served: Console) -> None:
    owner = served.owner()
    page.goto(served.console + "/sign-in")
    page.get_by_label("Email").fill(owner.email)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text("Wrong email or password.")
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)


def test_sign_in_returns_to_the_page_asked_for_and_never_to_another_site(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/keys")
    expect(page).to_have_url(served.project_url(owner, "keys"))
    page.context.clear_cookies()
    sign_in(page, served, owner, to="//evil.example/")
    expect(page).to_have_url(served.console + "/")


def test_a_post_without_the_csrf_token_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner)
    refused = page.request.post(served.console + "/orgs", form={"name": "forged"})
    assert refused.status == 403
    wrong = page.request.post(served.console + "/orgs", form={"name": "forged", "csrf_token": "x" * 32})
    assert wrong.status == 403
    names = [org["name"] for org in served.api("GET", "/api/v1/orgs/organizations/", owner).json()]
    assert "forged" not in names
    done = page.request.post(served.console + "/orgs", form={"name": "real", "csrf_token": csrf_of(page)})
    assert done.ok
    names = [org["name"] for org in served.api("GET", "/api/v1/orgs/organizations/", owner).json()]
    assert "real" in names


def test_the_sign_in_form_needs_its_own_token(page: Page, served: Console) -> None:
    owner = served.owner()
    refused = page.request.post(served.console + "/sign-in", form={"email": owner.email, "password": PASSWORD})
    assert refused.status == 403
    assert "mnemo_console" not in {cookie["name"] for cookie in page.context.cookies()}


def test_an_expired_session_leads_back_to_sign_in(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner)
    served.clock.offset = timedelta(days=1)
    try:
        page.goto(served.project_url(owner, "keys"))
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        expired = page.request.post(served.console + "/orgs", form={"name": "late", "csrf_token": "x"}, max_redirects=0)
        assert expired.status == 303 and "/sign-in" in expired.headers["location"]
    finally:
        served.clock.offset = timedelta()


def test_every_page_carries_a_strict_policy_and_a_protected_cookie(page: Page, served: Console) -> None:
    owner = served.owner()
    response = page.goto(served.console + "/sign-in")
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["x-frame-options"] == "DENY"
    sign_in(page, served, owner)
    session = next(cookie for cookie in page.context.cookies() if cookie["name"] == "mnemo_console")
    assert session["httpOnly"] and session["sameSite"] == "Lax" and session["path"] == "/console"


def test_changing_the_password_ends_the_other_sessions(page: Page, browser: Browser, served: Console) -> None:
    owner = served.owner()
    other = browser.new_context()
    try:
        elsewhere = other.new_page()
        sign_in(elsewhere, served, owner)
        sign_in(page, served, owner)
        page.get_by_role("link", name="Password").click()
        page.get_by_label("Current password").fill(PASSWORD)
        page.get_by_label("New password", exact=True).fill("a much longer new password")
        page.get_by_label("New password again").fill("a much longer new password")
        page.get_by_role("button", name="Change password").click()
        expect(page.get_by_role("status")).to_contain_text("Your password is changed")
        elsewhere.reload()
        expect(elsewhere.get_by_role("heading", name="Sign in")).to_be_visible()
    finally:
        other.close()
        served.auth.set_password(owner.user, PASSWORD)


def test_an_invited_person_accepts_and_lands_in_the_project(page: Page, served: Console) -> None:
    owner = served.owner()
    email = f"new-{owner.project_id}@example.com"
    invitation = served.auth.invite(owner.user, owner.org_id, owner.project_id, email, Role.READER)
    page.goto(f"{served.console}/accept?token={invitation.token}")
    expect(page.get_by_text(email)).to_be_visible()
    page.get_by_label("Password", exact=True).fill("a long enough password")
    page.get_by_label("Password again").fill("a long enough password")
    page.get_by_role("button", name="Accept and sign in").click()
    expect(page.get_by_role("heading", name="Default Project")).to_be_visible()
    members = served.api(
        "GET", f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/members/", owner
    )
    assert {"email": email, "role": "READER"} in [
        {"email": m["email"], "role": m["role"]} for m in members.json()["members"]
    ]
    page.goto(f"{served.console}/accept?token={invitation.token}")
    expect(page.get_by_role("alert")).to_contain_text("unknown, spent or expired")


def test_a_name_full_of_markup_shows_as_text_in_the_frame(page: Page, served: Console) -> None:
    owner = served.owner()
    served.api("POST", "/api/v1/orgs/organizations/", owner, json={"name": XSS})
    sign_in(page, served, owner)
    expect(page.get_by_role("heading", name=XSS)).to_be_visible()
    assert_no_script_ran(page)


def test_signing_in_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    page.goto(served.console + "/sign-in")
    tab_to(page, page.get_by_label("Email"))
    page.keyboard.type(owner.email)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()


def test_the_sign_in_and_password_pages_are_accessible(
    page: Page, served: Console, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    page.goto(served.console + "/sign-in")
    assert_accessible(page)
    sign_in(page, served, owner)
    assert_accessible(page)
    page.goto(served.console + "/password")
    assert_accessible(page)
