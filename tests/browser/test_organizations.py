"""Organizations and projects in a browser: listing (a project's member outside its organization sees that project),
creating, switching to, renaming and deleting (after typing the name), each effect checked through the platform
API; markup in names shown as text; a READER sees no write control and a forged write is refused; keyboard-only
creation and renaming; the pages' accessibility."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import XSS, Console, assert_no_script_ran, csrf_of, sign_in, tab_to

ORGS = "/api/v1/orgs/organizations/"


def test_an_owner_creates_an_organization_and_a_project_then_switches_to_it(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner)
    page.get_by_label("Name", exact=True).fill("Research")
    page.get_by_role("button", name="Create organization").click()
    expect(page.get_by_role("status")).to_have_text("Organization Research created.")
    org = next(found for found in served.api("GET", ORGS, owner).json() if found["name"] == "Research")
    section = page.get_by_role("region", name="Research")
    section.get_by_label("New project's name").fill("Lab notes")
    section.get_by_role("button", name="Create project").click()
    expect(page.get_by_role("heading", name="Lab notes")).to_be_visible()
    projects = served.api("GET", f"{ORGS}{org['org_id']}/projects/", owner).json()
    assert [found["name"] for found in projects] == ["Lab notes"]
    expect(page).to_have_url(f"{served.console}/orgs/{org['org_id']}/projects/{projects[0]['project_id']}/")


def test_an_owner_renames_and_deletes_a_project(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/")
    page.get_by_label("New name").fill("Renamed")
    page.get_by_role("button", name="Rename project").click()
    expect(page.get_by_role("status")).to_have_text("Project renamed.")
    project = served.api("GET", f"{ORGS}{owner.org_id}/projects/{owner.project_id}/", owner).json()
    assert project["name"] == "Renamed"
    page.get_by_role("link", name="Delete this project").click()
    page.get_by_label("Type the project's name to confirm").fill("wrong name")
    page.get_by_role("button", name="Delete the project").click()
    expect(page.get_by_role("alert")).to_contain_text("Type the project's name exactly")
    assert served.api("GET", f"{ORGS}{owner.org_id}/projects/", owner).status_code == 200
    page.get_by_label("Type the project's name to confirm").fill("Renamed")
    page.get_by_role("button", name="Delete the project").click()
    expect(page.get_by_role("status")).to_contain_text("Project Renamed deleted")
    assert served.api("GET", f"{ORGS}{owner.org_id}/projects/{owner.project_id}/", owner).status_code in (401, 404)


def test_an_owner_deletes_an_organization_after_typing_its_name(page: Page, served: Console) -> None:
    owner = served.owner()
    created = served.api("POST", ORGS, owner, json={"name": "Short lived"}).json()
    sign_in(page, served, owner)
    page.get_by_role("link", name="Delete the organization Short lived").click()
    page.get_by_label("Type the organization's name to confirm").fill("Short lived")
    page.get_by_role("button", name="Delete the organization").click()
    expect(page.get_by_role("status")).to_contain_text("Organization Short lived deleted")
    assert created["org_id"] not in [found["org_id"] for found in served.api("GET", ORGS, owner).json()]


def test_markup_in_organization_and_project_names_shows_as_text(page: Page, served: Console) -> None:
    owner = served.owner()
    served.api(
        "PATCH", f"{ORGS}{owner.org_id}/projects/{owner.project_id}/", owner, json={"name": XSS, "description": XSS}
    )
    sign_in(page, served, owner)
    expect(page.get_by_role("link", name=XSS)).to_be_visible()
    assert_no_script_ran(page)
    page.get_by_role("link", name=XSS).click()
    expect(page.get_by_role("heading", name=XSS)).to_be_visible()
    expect(page.locator("dd", has_text=XSS)).to_be_visible()
    assert_no_script_ran(page)
    page.get_by_role("link", name="Delete this project").click()
    expect(page.get_by_role("heading", name=f"Delete the project {XSS}")).to_be_visible()
    assert_no_script_ran(page)


def test_a_reader_sees_no_write_control_and_a_forged_write_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=f"/orgs/{owner.org_id}/projects/{owner.project_id}/")
    expect(page.get_by_role("heading", name="Default Project")).to_be_visible()
    expect(page.get_by_role("button", name="Rename project")).to_have_count(0)
    expect(page.get_by_role("link", name="Delete this project")).to_have_count(0)
    base = served.project_url(owner)
    token = csrf_of(page)
    assert page.request.post(base + "rename", form={"name": "taken", "csrf_token": token}).status == 403
    assert page.request.post(base + "delete", form={"confirm": "Default Project", "csrf_token": token}).status == 403
    project = served.api("GET", f"{ORGS}{owner.org_id}/projects/{owner.project_id}/", owner).json()
    assert project["name"] == "Default Project"


def test_a_stranger_cannot_see_anothers_project(page: Page, served: Console) -> None:
    owner, stranger = served.owner(), served.owner("stranger")
    sign_in(page, served, stranger)
    response = page.goto(served.project_url(owner))
    assert response is not None and response.status == 404


def test_creating_an_organization_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner)
    tab_to(page, page.get_by_label("Name", exact=True))
    page.keyboard.type("Typed")
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Organization Typed created.")
    assert "Typed" in [found["name"] for found in served.api("GET", ORGS, owner).json()]


def test_the_organization_and_project_pages_are_accessible(
    page: Page, served: Console, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    sign_in(page, served, owner)
    assert_accessible(page)
    page.goto(served.project_url(owner))
    assert_accessible(page)
    page.goto(served.project_url(owner, "delete"))
    assert_accessible(page)


def test_an_owner_renames_an_organization_from_the_home_page_with_the_keyboard(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner)
    field = page.get_by_label("Organization's new name")
    tab_to(page, field)
    page.keyboard.press("Control+A")
    page.keyboard.type("Renamed org")
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_have_text("Organization renamed to Renamed org.")
    expect(page.get_by_role("heading", name="Renamed org")).to_be_visible()
    assert served.api("GET", f"{ORGS}{owner.org_id}/", owner).json()["name"] == "Renamed org"

    page.get_by_label("Organization's new name").fill("   ")
    page.get_by_role("button", name="Rename organization").click()
    expect(page.get_by_role("alert")).to_contain_text("name")
    assert served.api("GET", f"{ORGS}{owner.org_id}/", owner).json()["name"] == "Renamed org"


def test_markup_in_a_new_organization_name_shows_as_text(page: Page, served: Console) -> None:
    owner = served.owner()
    sign_in(page, served, owner)
    page.get_by_label("Organization's new name").fill(XSS)
    page.get_by_role("button", name="Rename organization").click()
    expect(page.get_by_role("heading", name=XSS)).to_be_visible()
    assert_no_script_ran(page)
    assert served.api("GET", f"{ORGS}{owner.org_id}/", owner).json()["name"] == XSS


def test_an_organization_reader_sees_no_rename_control_and_a_forged_rename_is_refused(
    page: Page, served: Console
) -> None:
    owner = served.owner()
    tenancy = served.container.platform.tenancy
    reader = served.owner("org-reader")  # a user with a password and an organization of their own
    tenancy.add_org_member(owner.org_id, owner.user, reader.email, Role.READER.value)
    sign_in(page, served, reader)
    theirs = page.get_by_role("region", name=served.api("GET", f"{ORGS}{owner.org_id}/", owner).json()["name"])
    expect(theirs).to_be_visible()
    expect(theirs.get_by_role("button", name="Rename organization")).to_have_count(0)
    token = csrf_of(page)
    forged = page.request.post(f"{served.console}/orgs/{owner.org_id}/rename", form={"name": "x", "csrf_token": token})
    assert forged.status == 403
    no_token = page.request.post(f"{served.console}/orgs/{owner.org_id}/rename", form={"name": "x"})
    assert no_token.status == 403
    assert served.api("GET", f"{ORGS}{owner.org_id}/", owner).json()["name"] != "x"


def test_a_project_only_member_sees_that_project_on_the_home_page_and_nothing_else_of_its_organization(
    page: Page, served: Console, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    tenancy = served.container.platform.tenancy
    tenancy.rename_org(owner.org_id, owner.user, XSS)
    served.api("POST", f"{ORGS}{owner.org_id}/projects/", owner, json={"name": "Secret plans"})
    member = served.member(owner, Role.READER)  # of the owner's default project, not of the organization
    assert owner.org_id not in [found["org_id"] for found in served.api("GET", ORGS, member).json()]
    sign_in(page, served, member)
    theirs = page.get_by_role("region", name=XSS)
    expect(theirs).to_contain_text("project member")
    assert_no_script_ran(page)
    expect(theirs.get_by_role("link", name="Default Project")).to_be_visible()
    expect(theirs.get_by_text("Secret plans")).to_have_count(0)
    expect(theirs.get_by_role("button")).to_have_count(0)  # no create, rename or delete there
    expect(theirs.get_by_role("link", name=re.compile("Delete"))).to_have_count(0)
    assert_accessible(page)
    tab_to(page, theirs.get_by_role("link", name="Default Project"))
    page.keyboard.press("Enter")
    expect(page).to_have_url(served.project_url(owner))
    expect(page.get_by_role("heading", name="Default Project")).to_be_visible()
