"""Options of an add (issue 17), on both backends. `immutable=true`: the memory can never be updated (409, one at a
time or in a batch, which then changes nothing), later adds never outdate or merge it away, and it can still be
deleted. `includes` / `excludes`: what the extractor keeps, without an LLM; with infer=false, a 400."""

from __future__ import annotations

import httpx

from tests.e2e.platform.conftest import Server, Tenant, new_tenant
from tests.e2e.platform.test_categories import add, memory
from tests.support.waits import HTTP_TIMEOUT


def test_an_immutable_memory_is_never_updated_but_can_be_deleted(server: Server) -> None:
    tenant = new_tenant(server, "immutable")
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    (kept,) = add(server, tenant, "I live in Paris.", infer=True, immutable=True, timestamp=1_700_000_000)
    (other,) = add(server, tenant, "My favourite colour is green.")

    refused = http.put(f"/v1/memories/{kept['id']}/", json={"text": "I live in Rome."})
    assert refused.status_code == 409 and "immutable" in refused.json()["detail"]
    batch = http.put(
        "/v1/batch/",
        json={"memories": [{"memory_id": other["id"], "text": "Blue."}, {"memory_id": kept["id"], "text": "Rome."}]},
    )
    assert batch.status_code == 409 and kept["id"] in batch.json()["detail"]
    assert memory(server, tenant, other["id"])["memory"] == "My favourite colour is green."  # all or nothing
    assert http.put(f"/v1/memories/{other['id']}/", json={"text": "Blue."}).status_code == 200  # a mutable one is

    # a later statement that changes the fact does not outdate it, nor does one that says it again merge into it
    (moved,) = add(server, tenant, "I moved from Paris to Lisbon.", infer=True, timestamp=1_710_000_000)
    assert memory(server, tenant, kept["id"])["lifecycle_state"] == "active"
    assert memory(server, tenant, moved["id"])["lifecycle_state"] == "active"
    (again,) = add(server, tenant, "User lives in Paris", immutable=True)
    assert memory(server, tenant, again["id"])["lifecycle_state"] == "active"  # its own memory, not merged

    assert http.delete(f"/v1/memories/{kept['id']}/").status_code == 200
    assert http.get(f"/v1/memories/{kept['id']}/").status_code == 404


SAID = (
    "I'm allergic to peanuts and my doctor gave me an EpiPen. Sushi is my favourite food. I play bass in a punk band."
)


def stored(server: Server, tenant: Tenant, user: str) -> list[str]:
    page = httpx.post(
        f"{server.url}/v2/memories/", json={"filters": {"user_id": user}}, headers=tenant.headers, timeout=HTTP_TIMEOUT
    )
    assert page.status_code == 200, page.text
    return sorted(m["memory"] for m in page.json())


def test_includes_and_excludes_say_what_is_extracted_without_an_llm(server: Server) -> None:
    tenant = new_tenant(server, "topics")
    for user, option in (("all", {}), ("no-health", {"excludes": "health"}), ("food", {"includes": "food"})):
        add(server, tenant, SAID, infer=True, user_id=user, **option)
    everything = stored(server, tenant, "all")
    assert len(everything) == 3
    assert stored(server, tenant, "no-health") == [m for m in everything if "peanuts" not in m]
    assert stored(server, tenant, "food") == ["Sushi is my favourite food."]
    refused = httpx.post(
        f"{server.url}/v3/memories/add/",
        json={"messages": [{"role": "user", "content": SAID}], "user_id": "x", "infer": False, "excludes": "health"},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert refused.status_code == 400 and "infer=false" in refused.json()["detail"]


def test_an_app_alone_is_a_scope_like_the_others(server: Server) -> None:
    tenant = new_tenant(server, "apps")
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    for app, text in (("web", "Prefers dark mode"), ("web", "Ships on Fridays"), ("cli", "Uses zsh")):
        body = {"messages": [{"role": "user", "content": text}], "app_id": app, "infer": False}
        answer = http.post("/v3/memories/add/", json=body)
        assert answer.status_code == 200 and answer.json()["status"] == "SUCCEEDED", answer.text
    web = http.post("/v2/memories/", json={"filters": {"app_id": "web"}}).json()
    assert sorted(m["memory"] for m in web) == ["Prefers dark mode", "Ships on Fridays"]
    assert all(m["app_id"] == "web" and m["user_id"] is None for m in web)
    entities = http.get("/v1/entities/").json()  # listed like the other kinds, with their counts
    assert [(e["type"], e["id"], e["total_memories"]) for e in entities["results"]] == [
        ("app", "cli", 1),
        ("app", "web", 2),
    ]
    assert (entities["total_apps"], entities["total_users"]) == (2, 0)
    found = http.post("/v3/memories/search/", json={"query": "shell", "filters": {"app_id": "cli"}}).json()
    assert [h["memory"] for h in found["results"]] == ["Uses zsh"]  # another app's memories are not its
    assert http.delete("/v1/memories/", params={"app_id": "web"}).status_code in (200, 204)
    assert http.post("/v2/memories/", json={"filters": {"app_id": "web"}}).json() == []
    assert [e["id"] for e in http.get("/v1/entities/").json()["results"]] == ["cli"]
    assert [m["memory"] for m in http.post("/v2/memories/", json={"filters": {"app_id": "cli"}}).json()] == ["Uses zsh"]


NOTES = ("Prefers metric units.", "Allergic to shellfish.", "Alice lives in Lisbon.")


def test_an_agents_notes_without_a_subject_are_inferred_as_the_users_facts(server: Server) -> None:
    """What the reference's MCP server sends through extraction: one terse note per add, no subject."""
    tenant = new_tenant(server, "notes")
    for note in NOTES:
        [added] = add(server, tenant, note, infer=True, user_id="notes")
        assert added["event"] == "ADD" and added["data"]["memory"] == note, added
    assert stored(server, tenant, "notes") == sorted(NOTES)
