"""A project's entities in a browser: listed with their memory counts and a link to their memories, deleted with
their memories after a confirmation (checked through the API); an id with markup shown as text; a READER sees no
delete and a forged one is refused; keyboard-only deletion; accessibility."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import Console, Person, add_memory, assert_no_script_ran, csrf_of, sign_in, tab_to


def _entities_url(owner: Person) -> str:
    return f"/orgs/{owner.org_id}/projects/{owner.project_id}/entities"


def _counts(served: Console, owner: Person) -> dict[str, int]:
    found = served.api("GET", "/v1/entities/", owner).json()
    return {entity["name"]: entity["total_memories"] for entity in found["results"]}


def test_entities_are_listed_with_counts_and_lead_to_their_memories(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, "Judy likes jazz", user_id="judy")
    add_memory(served, owner, "Judy likes jam", user_id="judy")
    add_memory(served, owner, "The helper answers briefly", agent_id="helper")
    sign_in(page, served, owner, to=_entities_url(owner))
    judy = page.get_by_role("row").filter(has_text="judy")
    expect(judy).to_contain_text("user")
    expect(judy.get_by_role("cell").nth(3)).to_have_text("2")
    expect(page.get_by_role("row").filter(has_text="helper").get_by_role("cell").nth(3)).to_have_text("1")
    judy.get_by_role("link", name="judy", exact=True).click()
    expect(page.get_by_role("table").locator("caption")).to_have_text("2 memories")


def test_an_owner_deletes_an_entity_with_its_memories(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, "Ken collects stamps", user_id="ken")
    add_memory(served, owner, "Leo collects coins", user_id="leo")
    sign_in(page, served, owner, to=_entities_url(owner))
    page.get_by_role("link", name="Delete the user ken").click()
    page.get_by_role("button", name="Delete the user and 1 memories").click()
    expect(page.get_by_role("status")).to_have_text("The user ken is deleted, with 1 memories.")
    assert served.api("GET", "/v1/memories/?user_id=ken", owner).json() == []
    assert len(served.api("GET", "/v1/memories/?user_id=leo", owner).json()) == 1


def test_an_id_with_markup_shows_as_text(page: Page, served: Console) -> None:
    owner = served.owner()
    odd = "<img/src=x/onerror=window.__xss=1><script>window.__xss=1</script>"
    add_memory(served, owner, "Someone odd", user_id=odd)
    sign_in(page, served, owner, to=_entities_url(owner))
    expect(page.get_by_role("link", name=odd, exact=True)).to_be_visible()
    assert_no_script_ran(page)
    page.get_by_role("link", name=f"Delete the user {odd}").click()
    expect(page.get_by_role("heading")).to_have_text(f"Delete the user {odd}")
    assert_no_script_ran(page)


def test_a_reader_sees_no_delete_and_a_forged_one_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, "Mia sings", user_id="mia")
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=_entities_url(owner))
    expect(page.get_by_role("link", name="mia", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Delete the user mia")).to_have_count(0)
    forged = page.request.post(
        f"{served.console}{_entities_url(owner)}/delete",
        form={"type": "user", "id": "mia", "csrf_token": csrf_of(page)},
    )
    assert forged.status == 403
    assert len(served.api("GET", "/v1/memories/?user_id=mia", owner).json()) == 1


def test_deleting_an_entity_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, "Ned hikes", user_id="ned")
    sign_in(page, served, owner, to=_entities_url(owner))
    tab_to(page, page.get_by_role("link", name="Delete the user ned"))
    page.keyboard.press("Enter")
    tab_to(page, page.get_by_role("button", name="Delete the user and 1 memories"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_have_text("The user ned is deleted, with 1 memories.")


def test_the_entity_pages_are_accessible(
    page: Page, served: Console, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    add_memory(served, owner, "Olga reads", user_id="olga")
    sign_in(page, served, owner, to=_entities_url(owner))
    assert_accessible(page)
    page.goto(f"{served.console}{_entities_url(owner)}/delete?type=user&id=olga")
    assert_accessible(page)
