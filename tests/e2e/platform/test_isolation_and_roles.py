"""Tenant isolation and roles: another project's memory, event, entity or export is not found on any route,
whatever id is sent; a READER views and searches but changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from mem0 import MemoryClient
from mem0.exceptions import AuthenticationError

from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant, wait_for_event
from tests.support.waits import HTTP_TIMEOUT

MISSING = {"GET", "PUT", "DELETE"}


def add(http: httpx.Client, text: str, user_id: str) -> str:
    body = {"messages": [{"role": "user", "content": text}], "user_id": user_id, "infer": False}
    response = http.post("/v3/memories/add/", json=body)
    assert response.status_code == 200, response.text
    return str(response.json()["results"][0]["id"])


def test_no_route_reaches_another_projects_data(server: Server) -> None:
    owner, intruder = new_tenant(server, "victim"), new_tenant(server, "intruder")
    victim = httpx.Client(base_url=server.url, headers=owner.headers, timeout=HTTP_TIMEOUT)
    other = httpx.Client(base_url=server.url, headers=intruder.headers, timeout=HTTP_TIMEOUT)
    secret = add(victim, "The vault code is 4711", "alice")
    queued = victim.post(
        "/v3/memories/add/",
        json={"messages": [{"role": "user", "content": "I hide keys under the mat."}], "user_id": "alice"},
    )
    event_id = queued.json()["event_id"]
    assert wait_for_event(server, owner, event_id)["status"] == "SUCCEEDED"
    export_id = victim.post(
        "/v1/exports/", json={"schema": {"type": "object"}, "filters": {"user_id": "alice"}}
    ).json()["id"]
    add(other, "intruder's own memory", "alice")  # the same user id, in the other project

    not_found: list[tuple[str, str, dict[str, Any] | None]] = [
        ("GET", f"/v1/memories/{secret}/", None),
        ("PUT", f"/v1/memories/{secret}/", {"text": "overwritten"}),
        ("DELETE", f"/v1/memories/{secret}/", None),
        ("GET", f"/v1/memories/{secret}/history/", None),
        ("PUT", "/v1/batch/", {"memories": [{"memory_id": secret, "text": "overwritten"}]}),
        ("DELETE", "/v1/batch/", {"memories": [{"memory_id": secret}]}),
        ("POST", "/v1/feedback/", {"memory_id": secret, "feedback": "NEGATIVE"}),
        ("GET", f"/v1/event/{event_id}/", None),
        ("POST", "/v1/exports/get/", {"memory_export_id": export_id}),
        ("GET", f"/api/v1/orgs/organizations/{owner.org_id}/", None),
        ("GET", f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/", None),
        ("PATCH", f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/", {"decay": True}),
        ("DELETE", f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/", None),
        ("GET", f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/api-keys/", None),
        # the intruder's own org in the path, the victim's project: still not found
        ("GET", f"/api/v1/orgs/organizations/{intruder.org_id}/projects/{owner.project_id}/", None),
    ]
    for method, path, body in not_found:
        response = other.request(method, path, json=body)
        assert response.status_code == 404, (method, path, response.status_code, response.text)
    denied = other.post(
        f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/members/",
        json={"email": "spy@example.com", "role": "OWNER"},
    )
    assert (denied.status_code, denied.json()["message"]) == (404, "Organization or project not found.")

    # nothing leaks through lists, searches, entities, stats or deletes either
    assert other.post("/v3/memories/", json={"filters": {"user_id": "alice"}}).json()["count"] == 1
    found = other.post(
        "/v3/memories/search/", json={"query": "vault code", "filters": {"user_id": "alice"}, "threshold": 0.0}
    ).json()
    assert [m["memory"] for m in found["results"]] == ["intruder's own memory"]
    assert [e["total_memories"] for e in other.get("/v1/entities/").json()["results"]] == [1]
    assert other.get("/v1/stats/").json()["total_memories"] == 1
    assert all(e["id"] != event_id for e in other.get("/v1/events/").json()["results"])
    other.delete("/v2/entities/user/alice/")
    other.delete("/v1/memories/", params={"user_id": "*", "agent_id": "*", "app_id": "*", "run_id": "*"})

    still = victim.get(f"/v1/memories/{secret}/").json()
    assert still["memory"] == "The vault code is 4711"
    assert victim.post("/v3/memories/", json={"filters": {"user_id": "alice"}}).json()["count"] == 2
    assert victim.post("/v1/exports/get/", json={"memory_export_id": export_id}).status_code == 200
    assert victim.post("/v1/feedback/", json={"memory_id": secret, "feedback": "POSITIVE"}).status_code == 200


def test_a_reader_views_and_searches_but_changes_nothing(server: Server, tenant: Tenant) -> None:
    owner = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    project = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    memory_id = add(owner, "Reader can see this", "alice")
    known_user(server, "reader@example.com")
    added = MemoryClient(api_key=tenant.key, host=server.url).project.add_member("reader@example.com", "READER")
    assert added == {"message": "User added to the project successfully."}
    created = owner.post(project + "api-keys/", json={"email": "reader@example.com", "label": "reader"})
    assert created.status_code == 201 and created.json()["user_email"] == "reader@example.com"
    reader_key = created.json()["api_key"]
    reader = MemoryClient(api_key=reader_key, host=server.url)
    assert reader.user_email == "reader@example.com" and reader.project_id == tenant.project_id

    assert reader.get(memory_id)["memory"] == "Reader can see this"
    assert reader.search("see", filters={"user_id": "alice"})["results"][0]["id"] == memory_id
    assert reader.get_all(filters={"user_id": "alice"})["count"] == 1
    assert reader.project.get(fields=["user_role"]) == {"user_role": "READER"}
    changes: list[Callable[[], object]] = [
        lambda: reader.add("I like jazz", user_id="alice"),
        lambda: reader.update(memory_id, text="changed"),
        lambda: reader.delete(memory_id),
        lambda: reader.delete_all(user_id="alice"),
        lambda: reader.batch_delete([{"memory_id": memory_id}]),
        lambda: reader.project.update(decay=True),
    ]
    for change in changes:
        with pytest.raises(AuthenticationError):
            change()
    refused = httpx.post(
        f"{server.url}{project}members/",
        json={"email": "x@example.com", "role": "READER"},
        headers={"Authorization": f"Token {reader_key}"},
        timeout=HTTP_TIMEOUT,
    )
    assert (refused.status_code, refused.json()["message"]) == (
        403,
        "You are not authorized to modify project members.",
    )
    assert owner.get(f"/v1/memories/{memory_id}/").json()["memory"] == "Reader can see this"

    # the owner revokes the reader's key, then removes the reader: the key no longer opens anything
    (reader_entry,) = [k for k in owner.get(project + "api-keys/").json() if k["user_email"] == "reader@example.com"]
    assert "api_key" not in reader_entry and reader_key.startswith(reader_entry["key_prefix"])
    assert owner.delete(project + f"api-keys/{reader_entry['id']}/").status_code == 200
    assert (
        httpx.get(
            f"{server.url}/v1/ping/", headers={"Authorization": f"Token {reader_key}"}, timeout=HTTP_TIMEOUT
        ).status_code
        == 401
    )
    second = owner.post(project + "api-keys/", json={"email": "reader@example.com"}).json()["api_key"]
    assert (
        httpx.get(
            f"{server.url}/v1/ping/", headers={"Authorization": f"Token {second}"}, timeout=HTTP_TIMEOUT
        ).status_code
        == 200
    )
    owner.delete(project + "members/", params={"email": "reader@example.com"})
    assert (
        httpx.get(
            f"{server.url}/v1/ping/", headers={"Authorization": f"Token {second}"}, timeout=HTTP_TIMEOUT
        ).status_code
        == 401
    )


def test_every_platform_route_needs_a_token_key(server: Server) -> None:
    spec = httpx.get(f"{server.url}/openapi.json", timeout=HTTP_TIMEOUT).json()
    platform = {
        (method, path)
        for path, methods in spec["paths"].items()
        if path.startswith(("/v1/", "/v2/", "/v3/", "/api/v1/"))
        for method in methods
    }
    assert len(platform) >= 46  # the routes of this issue; webhooks and profiles add more
    values = {"memory_id": "00000000-0000-4000-8000-000000000000", "event_id": "e", "entity_type": "user"}
    http = httpx.Client(timeout=HTTP_TIMEOUT)
    for method, path in sorted(platform):
        assert spec["paths"][path][method]["security"] == [{"PlatformToken": []}], (method, path)
        url = server.url + path.format_map(
            {
                **dict.fromkeys(
                    ("org_id", "project_id", "key_id", "entity_id", "webhook_id", "delivery_id", "job_id"), "x"
                ),
                **values,
            }
        )
        for headers in ({}, {"Authorization": "Token m0-" + "x" * 43}, {"X-API-Key": "m0sk_" + "x" * 43}):
            response = http.request(method.upper(), url, headers=headers, json={})
            assert response.status_code == 401, (method, path, headers, response.text)
