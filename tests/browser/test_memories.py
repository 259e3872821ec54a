"""A project's memories in a browser: browsing by user, agent, app or run with pages; searching with the score
explained; a memory's detail with its sources, categories, state and history; editing and deleting it; deleting by
filter after the count; each effect checked through the API. Markup in a memory's text, metadata or a user id
shows as text; a READER sees no write control and a forged write is refused; keyboard-only search; accessibility."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from mnemo.domain.tenancy import Role
from tests.browser.conftest import XSS, Console, Person, add_memory, assert_no_script_ran, csrf_of, sign_in, tab_to


def _memories_url(owner: Person) -> str:
    return f"/orgs/{owner.org_id}/projects/{owner.project_id}/memories"


def _memory(served: Console, owner: Person, memory_id: str) -> dict[str, object] | None:
    answer = served.api("GET", f"/v1/memories/{memory_id}/", owner)
    return answer.json() if answer.status_code == 200 else None


def test_browsing_by_user_with_pages(page: Page, served: Console) -> None:
    owner = served.owner()
    for number in range(22):
        add_memory(served, owner, f"Alice noted fact number {number}", user_id="alice")
    add_memory(served, owner, "Bob likes tea", user_id="bob")
    sign_in(page, served, owner, to=_memories_url(owner))
    expect(page.get_by_role("table").locator("caption")).to_have_text("23 memories, page 1 of 2")
    page.get_by_label("User").fill("alice")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("table").locator("caption")).to_have_text("22 memories, page 1 of 2")
    expect(page.get_by_role("row")).to_have_count(21)  # the heading row and 20
    page.get_by_role("link", name="Next page").click()
    expect(page.get_by_role("table").locator("caption")).to_have_text("22 memories, page 2 of 2")
    expect(page.get_by_role("row")).to_have_count(3)
    expect(page.get_by_text("Bob likes tea")).to_have_count(0)


def test_searching_explains_each_score(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, "Carol is allergic to peanuts", user_id="carol")
    add_memory(served, owner, "Carol works as a pilot", user_id="carol")
    sign_in(page, served, owner, to=_memories_url(owner))
    page.get_by_label("Search").fill("peanut allergy")
    page.get_by_role("button", name="Show").click()
    first = page.get_by_role("row").nth(1)
    expect(first).to_contain_text("Carol is allergic to peanuts")
    expect(first).to_contain_text("semantic")
    expect(first).to_contain_text("keywords")


def test_a_memorys_detail_edit_and_delete(page: Page, served: Console) -> None:
    owner = served.owner()
    memory_id = add_memory(served, owner, "Dave drives a blue car", user_id="dave", metadata={"source": "chat"})
    sign_in(page, served, owner, to=f"{_memories_url(owner)}/{memory_id}")
    expect(page.locator(".memory-text")).to_have_text("Dave drives a blue car")
    expect(page.get_by_text("active", exact=True)).to_be_visible()
    expect(page.get_by_role("region", name="Sources")).to_contain_text("Dave drives a blue car")
    expect(page.get_by_role("table", name="History")).to_contain_text("ADD")
    page.get_by_label("Text").fill("Dave drives a red car")
    page.get_by_label("Metadata (a JSON object)").fill('{"source": "console"}')
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Memory saved.")
    expect(page.get_by_role("table", name="History")).to_contain_text("UPDATE")
    stored = _memory(served, owner, memory_id)
    assert stored is not None and stored["memory"] == "Dave drives a red car"
    assert stored["metadata"] == {"source": "console"}
    page.get_by_role("button", name="Delete this memory").click()
    expect(page.get_by_role("status")).to_have_text("Memory deleted.")
    assert _memory(served, owner, memory_id) is None


def test_deleting_by_filter_counts_first(page: Page, served: Console) -> None:
    owner = served.owner()
    kept = add_memory(served, owner, "Frank keeps this", user_id="frank")
    for number in range(3):
        add_memory(served, owner, f"Erin said thing {number}", user_id="erin")
    sign_in(page, served, owner, to=f"{_memories_url(owner)}?user_id=erin")
    page.get_by_role("link", name="Delete every memory of this filter").click()
    expect(page.get_by_role("main")).to_contain_text("matches 3 memories")
    add_memory(served, owner, "Erin said one more", user_id="erin")
    page.get_by_role("button", name="Delete 3 memories").click()
    expect(page.get_by_role("alert")).to_contain_text("now matches 4 memories")
    page.goto(f"{served.console}{_memories_url(owner)}/delete?user_id=erin")
    page.get_by_role("button", name="Delete 4 memories").click()
    expect(page.get_by_role("status")).to_have_text("4 memories deleted.")
    listed = served.api("GET", "/v1/memories/?user_id=erin", owner).json()
    assert listed == []
    assert _memory(served, owner, kept) is not None


def test_markup_in_a_memory_its_metadata_and_its_user_shows_as_text(page: Page, served: Console) -> None:
    owner = served.owner()
    memory_id = add_memory(served, owner, XSS, user_id="mallory", metadata={"note": XSS})
    sign_in(page, served, owner, to=_memories_url(owner))
    expect(page.get_by_role("link", name=XSS)).to_be_visible()
    assert_no_script_ran(page)
    page.get_by_label("Search").fill("script window")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("link", name=XSS)).to_be_visible()
    assert_no_script_ran(page)
    page.goto(f"{served.console}{_memories_url(owner)}/{memory_id}")
    expect(page.locator(".memory-text")).to_have_text(XSS)
    expect(page.locator("pre")).to_contain_text("<script>")
    assert_no_script_ran(page)


def test_a_user_id_with_markup_shows_as_text_in_the_list_the_filter_and_the_detail(page: Page, served: Console) -> None:
    owner = served.owner()
    user = "<img/src=x/onerror=window.__xss=1><script>window.__xss=1</script>"  # ids hold no whitespace
    memory_id = add_memory(served, owner, "Someone odd", user_id=user)
    sign_in(page, served, owner, to=_memories_url(owner))
    page.get_by_label("User").fill(user)
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("table").locator("caption")).to_have_text("1 memories")
    expect(page.get_by_role("cell", name=f"user {user}")).to_be_visible()
    expect(page.get_by_label("User")).to_have_value(user)
    assert_no_script_ran(page)
    page.get_by_role("link", name="Delete every memory of this filter").click()
    expect(page.get_by_role("main")).to_contain_text(f"user_id = {user}")
    assert_no_script_ran(page)
    page.goto(f"{served.console}{_memories_url(owner)}/{memory_id}")
    expect(page.locator("dd code").filter(has_text=user)).to_be_visible()
    assert_no_script_ran(page)


def test_a_reader_sees_no_write_control_and_a_forged_write_is_refused(page: Page, served: Console) -> None:
    owner = served.owner()
    memory_id = add_memory(served, owner, "Grace reads", user_id="grace")
    reader = served.member(owner, Role.READER)
    sign_in(page, served, reader, to=f"{_memories_url(owner)}?user_id=grace")
    expect(page.get_by_role("link", name="Grace reads")).to_be_visible()
    expect(page.get_by_role("link", name="Delete every memory of this filter")).to_have_count(0)
    page.get_by_role("link", name="Grace reads").click()
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    expect(page.get_by_role("button", name="Delete this memory")).to_have_count(0)
    token = csrf_of(page)
    base = f"{served.console}{_memories_url(owner)}"
    for path, form in (
        (f"/{memory_id}/edit", {"text": "forged"}),
        (f"/{memory_id}/delete", {}),
        ("/delete", {"user_id": "grace", "expected": "1"}),
    ):
        assert page.request.post(base + path, form={**form, "csrf_token": token}).status == 403, path
    stored = _memory(served, owner, memory_id)
    assert stored is not None and stored["memory"] == "Grace reads"


def test_searching_with_the_keyboard_alone(page: Page, served: Console) -> None:
    owner = served.owner()
    add_memory(served, owner, "Heidi plays the cello", user_id="heidi")
    sign_in(page, served, owner, to=_memories_url(owner))
    tab_to(page, page.get_by_label("Search"))
    page.keyboard.type("cello")
    page.keyboard.press("Enter")
    expect(page.get_by_role("row").nth(1)).to_contain_text("Heidi plays the cello")


def test_the_memory_pages_are_accessible(
    page: Page, served: Console, assert_accessible: Callable[[Page], None]
) -> None:
    owner = served.owner()
    memory_id = add_memory(served, owner, "Ivan runs marathons", user_id="ivan")
    sign_in(page, served, owner, to=_memories_url(owner))
    assert_accessible(page)
    page.goto(f"{served.console}{_memories_url(owner)}?q=running")
    assert_accessible(page)
    page.goto(f"{served.console}{_memories_url(owner)}/{memory_id}")
    assert_accessible(page)
    page.goto(f"{served.console}{_memories_url(owner)}/delete?user_id=ivan")
    assert_accessible(page)
