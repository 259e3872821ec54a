"""The entity routes older clients and dashboards use beside the 2.2.1 client's: the memories of one entity
(`GET /v1/memories/{type}/{id}/`), the values a project can be filtered by (`GET /v1/entities/filters/`), and
the deprecated entity delete (`DELETE /v1/entities/{type}/{id}/`, the TypeScript client's `deleteUser`)."""

from __future__ import annotations

import httpx

from tests.e2e.platform.conftest import Server, Tenant


def add(http: httpx.Client, text: str, **ids: str) -> str:
    body = {
        "messages": [{"role": "user", "content": text}],
        "infer": False,
        "custom_categories": [{"travel": "trips, flights and holidays"}, {"food": "meals, cooking and diets"}],
        **ids,
    }
    response = http.post("/v3/memories/add/", json=body)
    assert response.status_code == 200, response.text
    return str(response.json()["results"][0]["id"])


def test_the_memories_of_one_entity(server: Server, tenant: Tenant) -> None:
    http = httpx.Client(base_url=server.url, headers=tenant.headers)
    flight = add(http, "I booked flights to Tokyo for the holidays", user_id="alice")
    cooking = add(http, "I love cooking ramen", user_id="alice", agent_id="chef")
    add(http, "Bob prefers tea", user_id="bob")

    alice = http.get("/v1/memories/user/alice/")
    assert alice.status_code == 200, alice.text
    assert {m["id"] for m in alice.json()} == {flight, cooking}
    assert [m["id"] for m in http.get("/v1/memories/agents/chef/").json()] == [cooking]  # plural accepted
    paged = http.get("/v1/memories/user/alice/", params={"page": 1, "page_size": 1}).json()
    assert paged["count"] == 2 and len(paged["results"]) == 1
    assert http.get("/v1/memories/user/nobody/").json() == []
    assert http.get("/v1/memories/planet/mars/").status_code == 400
    # a memory's history still wins its own route
    assert http.get(f"/v1/memories/{flight}/history/").json()[0]["event"] == "ADD"


def test_what_a_project_can_be_filtered_by(server: Server, tenant: Tenant) -> None:
    http = httpx.Client(base_url=server.url, headers=tenant.headers)
    add(http, "I booked flights to Tokyo for the holidays", user_id="alice")
    add(http, "I love cooking ramen", user_id="bob", agent_id="chef", run_id="r1")

    filters = http.get("/v1/entities/filters/").json()

    assert filters["categories"] == ["food", "travel"]
    assert (filters["users"], filters["agents"], filters["runs"]) == (["alice", "bob"], ["chef"], ["r1"])
    assert {"ADD", "SEARCH", "DELETE"} <= set(filters["event_type"])
    assert {"user_id", "created_at", "categories", "metadata"} <= set(filters["parameters"])


def test_the_deprecated_entity_delete_takes_the_listed_id(server: Server, tenant: Tenant) -> None:
    http = httpx.Client(base_url=server.url, headers=tenant.headers)
    add(http, "I booked flights to Tokyo", user_id="alice")
    kept = add(http, "Bob prefers tea", user_id="bob")
    (alice,) = [e for e in http.get("/v1/entities/").json()["results"] if e["name"] == "alice"]

    deleted = http.delete(f"/v1/entities/{alice['type']}/{alice['id']}/")

    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["deleted"] == 1
    assert [e["name"] for e in http.get("/v1/entities/").json()["results"]] == ["bob"]
    assert http.get(f"/v1/memories/{kept}/").status_code == 200
    assert http.delete("/v1/entities/planet/mars/").status_code == 400
