"""A project's members in a browser: the role table, inviting someone (the accept link shown once; accepting makes
the membership), changing a role, removing a member, revoking an invitation, each checked through the API; markup
shown as text; a READER sees no write control and a forged write is refused; accessibility."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Browser, Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import XSS, Console, Person, assert_no_script_ran, csrf_of, sign_in


def _members(served: Console, owner: Person) -> dict[str, str]:
    path = f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/members/"
    return {member["email"]: member["role"] for member in served.api("GET", path, owner).json()["members"]}


def test_the_role_table_is_shown(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/members")
    table = page.get_by_role("table", name="What each role may do")
    expect(table.get_by_role("cell", name="READER", exact=True)).to_be_visible()
    expect(table.get_by_role("cell", name="OWNER", exact=True)).to_be_visible()


def test_an_owner_invites_someone_who_accepts(page: Page, browser: Browser, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/members")
    email = f"invited-{owner.project_id}@example.com"
    page.get_by_label("Email").fill(email)
    page.get_by_label("Role", exact=True).select_option("OWNER")
    page.get_by_role("button", name="Invite").click()
    link = page.locator("#invite-link-value").inner_text()
    expect(page.get_by_role("region", name="Pending invitations")).to_contain_text(email)
    invited = browser.new_context()
    try:
        other = invited.new_page()
        other.goto(link)
        other.get_by_label("Password", exact=True).fill("a long enough password")
        other.get_by_label("Password again").fill("a long enough password")
        other.get_by_role("button", name="Accept and sign in").click()
        expect(other.get_by_role("button", name="Sign out")).to_be_visible()
    finally:
        invited.close()
    assert _members(served, owner)[email] == "OWNER"


def test_an_owner_revokes_an_invitation(page: Page, served: Console) -> None:
    owner = served.owner()
    invitation = served.auth.invite(owner.user, owner.org_id, owner.project_id, "later@example.com", Role.READER)
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/members")
    page.get_by_role("button", name="Revoke the invitation of later@example.com").click()
    expect(page.get_by_role("status")).to_have_text("Invitation revoked.")
    assert invitation.token is not None and served.auth.invitation(invitation.token) is None


def test_an_owner_changes_a_role_and_removes_a_member(page: Page, served: Console) -> None:
    owner = served.owner()
    member = served.member(owner, Role.READER)
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/members")
    page.get_by_label(f"Role of {member.email}", exact=True).select_option("OWNER")
    page.get_by_role("button", name=f"Set the role of {member.email}").click()
    expect(page.get_by_role("status")).to_have_text(f"{member.email} is now OWNER.")
    assert _members(served, owner)[member.email] == "OWNER"
    page.get_by_role("button", name=f"Remove {member.email}").click()
    expect(page.get_by_role("status")).to_have_text(f"{member.email} is no longer a member.")
    assert member.email not in _members(served, owner)


def test_an_invalid_invitation_is_refused_with_its_reason(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/members")
    token = csrf_of(page)
    refused = page.request.post(
        served.project_url(owner, "members/invite"), form={"email": XSS, "role": "READER", "csrf_token": token}
    )
    assert refused.ok  # back to the page, with the reason
    page.reload()
    page.get_by_label("Email").fill("someone@example.com")
    page.get_by_label("Role", exact=True).select_option("READER")
    page.evaluate(
        "() => document.querySelector('#invite-role').insertAdjacentHTML('beforeend', '<option>ADMIN</option>')"
    )
    page.get_by_label("Role", exact=True).select_option("ADMIN")
    page.get_by_role("button", name="Invite").click()
    expect(page.get_by_role("alert")).to_have_text("Choose a role: READER or OWNER.")


def test_markup_in_a_project_name_shows_as_text_on_the_members_page(page: Page, served: Console) -> None:
    owner = served.owner()
    path = f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/"
    served.api("PATCH", path, owner, json={"name": XSS})
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/members")
    expect(page.get_by_role("link", name=XSS)).to_be_visible()
    assert_no_script_ran(page)


def test_a_reader_sees_no_write_control_and_a_forged_write_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/members")
    expect(page.get_by_role("cell", name=owner.email)).to_be_visible()
    for name in ("Invite", "Remove", "Set role"):
        expect(page.get_by_role("button", name=name)).to_have_count(0)
    token = csrf_of(page)
    base = served.project_url(owner, "members")
    for path, form in (
        ("/invite", {"email": "x@example.com", "role": "OWNER"}),
        ("/role", {"email": reader.email, "role": "OWNER"}),
        ("/remove", {"email": owner.email}),
    ):
        assert page.request.post(base + path, form={**form, "csrf_token": token}).status == 403, path
    assert _members(served, owner) == {owner.email: "OWNER", reader.email: "READER"}


def test_the_members_page_is_accessible(page: Page, served: Console, assert_accessible: Callable[[Page], None]) -> None:
    owner = served.owner()
    served.member(owner, Role.READER)
    served.auth.invite(owner.user, owner.org_id, owner.project_id, "pending@example.com", Role.READER)
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/members")
    assert_accessible(page)
