"""The entity routes older clients and dashboards use beside the 2.2.1 client's: the memories of one entity
(`GET /v1/memories/{type}/{id}/`), the values a project can be filtered by (`GET /v1/entities/filters/`), and
the deprecated entity delete (`DELETE /v1/entities/{type}/{id}/`, the TypeScript client's `deleteUser`)."""

from __future__ import annotations

import httpx

from tests.e2e.platform.conftest import Server, Tenant, known_user
from tests.support.waits import HTTP_TIMEOUT


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
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
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
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    add(http, "I booked flights to Tokyo for the holidays", user_id="alice")
    add(http, "I love cooking ramen", user_id="bob", agent_id="chef", run_id="r1")

    filters = http.get("/v1/entities/filters/").json()

    assert filters["categories"] == ["food", "travel"]
    assert (filters["users"], filters["agents"], filters["runs"]) == (["alice", "bob"], ["chef"], ["r1"])
    assert {"ADD", "SEARCH", "DELETE"} <= set(filters["event_type"])
    assert {"user_id", "created_at", "categories", "metadata"} <= set(filters["parameters"])


def test_the_deprecated_entity_delete_takes_the_listed_id(server: Server, tenant: Tenant) -> None:
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    add(http, "I booked flights to Tokyo", user_id="alice")
    kept = add(http, "Bob prefers tea", user_id="bob")
    (alice,) = [e for e in http.get("/v1/entities/").json()["results"] if e["name"] == "alice"]

    deleted = http.delete(f"/v1/entities/{alice['type']}/{alice['id']}/")

    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["deleted"] == 1
    assert [e["name"] for e in http.get("/v1/entities/").json()["results"]] == ["bob"]
    assert http.get(f"/v1/memories/{kept}/").status_code == 200
    assert http.delete("/v1/entities/planet/mars/").status_code == 400


def test_entities_created_explicitly_are_listed_read_and_deleted(server: Server, tenant: Tenant) -> None:
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    created = http.post("/v1/users/", json={"user_id": "carol", "name": "Carol C.", "metadata": {"plan": "pro"}})
    assert created.status_code == 201, created.text
    body = created.json()
    assert (body["id"], body["user_id"], body["name"], body["metadata"]) == (
        "carol",
        "carol",
        "Carol C.",
        {"plan": "pro"},
    )
    assert body["project"] == tenant.project_id and body["is_deleted"] is False
    assert http.post("/v1/agents/", json={"agent_id": "helper"}).json()["name"] == "helper"
    assert http.post("/v1/apps/", json={"app_id": "mobile"}).status_code == 201
    assert http.post("/v1/runs/", json={"run_id": "r9"}).status_code == 201
    again = http.post("/v1/users/", json={"user_id": "carol", "name": "Someone else"})
    assert again.status_code == 409 and "already exists" in again.json()["detail"]

    listed = http.get("/v1/entities/").json()
    carol = next(e for e in listed["results"] if e["id"] == "carol")
    assert (carol["name"], carol["metadata"], carol["total_memories"]) == ("Carol C.", {"plan": "pro"}, 0)
    assert (listed["total_users"], listed["total_agents"], listed["total_apps"], listed["total_runs"]) == (1, 1, 1, 1)

    add(http, "Carol flies to Oslo for the holidays", user_id="carol")
    (one,) = http.get("/v2/entities/user/carol/").json()
    assert (one["name"], one["total_memories"]) == ("Carol C.", 1)  # the name stays, the count follows
    assert [e["id"] for e in http.get("/v1/entities/").json()["results"] if e["type"] == "user"] == ["carol"]

    deleted = http.delete("/v2/entities/user/carol/")
    assert deleted.status_code == 200 and deleted.json()["deleted"] == 1
    assert http.get("/v2/entities/user/carol/").status_code == 404
    assert "carol" not in [e["id"] for e in http.get("/v1/entities/").json()["results"]]
    assert http.post("/v1/users/", json={"user_id": "carol"}).status_code == 201  # gone, so new again


def test_creating_an_entity_checks_its_input_and_needs_an_owner(server: Server, tenant: Tenant) -> None:
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    for body in ({}, {"user_id": ""}, {"user_id": 7}, {"user_id": "u" * 256}, {"user_id": "u", "metadata": [1]}):
        response = http.post("/v1/users/", json=body)
        assert response.status_code == 400, (body, response.text)
    assert http.get("/v2/entities/user/" + "u" * 256 + "/").status_code == 400
    project = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    http.post(project + "members/", json={"email": known_user(server, "entity-reader@example.com"), "role": "READER"})
    reader_key = http.post(project + "api-keys/", json={"email": "entity-reader@example.com"}).json()["api_key"]
    reader = httpx.Client(base_url=server.url, headers={"Authorization": f"Token {reader_key}"}, timeout=HTTP_TIMEOUT)
    assert reader.post("/v1/users/", json={"user_id": "dave"}).status_code == 403
    assert reader.get("/v1/entities/").status_code == 200
