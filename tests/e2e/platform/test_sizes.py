"""Sizes on the platform, on both backends: what is too large for one request is a 413 (or a 400 for an id) that
says the limit, before anything is stored; the largest accepted requests are stored whole."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest

from mnemo.services.platform.tenancy import reports
from tests.e2e.platform.conftest import Server, Tenant, wait_for_event
from tests.support.waits import LONG_HTTP_TIMEOUT

HUGE = "word " * 20_001  # 100,005 bytes: over the 100,000 bytes of messages and metadata one add may carry
EMOJI = "\N{HONEYBEE}"  # four bytes of UTF-8


def http(server: Server, tenant: Tenant) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers=tenant.headers, timeout=LONG_HTTP_TIMEOUT)


def memories_of(client: httpx.Client, **filters: Any) -> list[dict[str, Any]]:
    response = client.post("/v3/memories/", json={"filters": filters})
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["results"]
    return found


def event_count(client: httpx.Client) -> int:
    count: int = client.get("/v1/events/").json()["count"]
    return count


def test_an_add_over_the_size_limit_is_413_and_leaves_no_event_or_memory(server: Server, tenant: Tenant) -> None:
    client = http(server, tenant)
    before = event_count(client)
    for body in (
        {"messages": [{"role": "user", "content": HUGE}], "user_id": "alice"},  # asynchronous
        {"messages": [{"role": "user", "content": HUGE}], "user_id": "alice", "infer": False},
        {"messages": [{"role": "user", "content": "I keep bees"}], "user_id": "alice", "metadata": {"n": HUGE}},
    ):
        response = client.post("/v3/memories/add/", json=body)
        assert response.status_code == 413, response.text
        assert "at most 100,000" in response.json()["detail"]
    assert event_count(client) == before
    assert memories_of(client, user_id="alice") == []


def test_the_largest_add_is_stored_whole_and_its_event_keeps_it(server: Server, tenant: Tenant) -> None:
    client = http(server, tenant)
    text = secrets.token_urlsafe(72_000)  # 96,000 bytes that barely compress
    accepted = client.post(
        "/v3/memories/add/", json={"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": False}
    )
    assert accepted.status_code == 200, accepted.text
    (result,) = accepted.json()["results"]
    assert client.get(f"/v1/memories/{result['id']}/").json()["memory"] == text
    event = wait_for_event(server, tenant, accepted.json()["event_id"])
    assert event["status"] == "SUCCEEDED" and event["results"][0]["data"]["memory"] == text


def test_an_update_over_the_size_limit_is_413_and_changes_nothing(server: Server, tenant: Tenant) -> None:
    client = http(server, tenant)
    added = client.post(
        "/v3/memories/add/",
        json={"messages": [{"role": "user", "content": "I keep bees"}], "user_id": "a", "infer": False},
    )
    memory_id = added.json()["results"][0]["id"]
    response = client.put(f"/v1/memories/{memory_id}/", json={"text": HUGE})
    assert response.status_code == 413, response.text
    assert client.get(f"/v1/memories/{memory_id}/").json()["memory"] == "I keep bees"
    # metadata merges into the memory's: each update may carry 90 kB, the memory may not grow past 100 kB
    first = client.put(f"/v1/memories/{memory_id}/", json={"metadata": {"a": "x" * 90_000}})
    assert first.status_code == 200, first.text
    second = client.put(f"/v1/memories/{memory_id}/", json={"metadata": {"b": "y" * 90_000}})
    assert second.status_code == 413 and "replace it" in second.json()["detail"]
    assert client.get(f"/v1/memories/{memory_id}/").json()["metadata"] == {"a": "x" * 90_000}


def test_entity_ids_are_bounded_in_bytes_as_well_as_characters(server: Server, tenant: Tenant) -> None:
    client = http(server, tenant)
    too_long = EMOJI * 255  # 255 characters, 1,020 bytes
    for method, path, body in (
        ("POST", "/v1/users/", {"user_id": too_long}),
        ("POST", "/v3/memories/add/", {"messages": [{"role": "user", "content": "x"}], "user_id": too_long}),
        ("POST", "/v3/memories/", {"filters": {"user_id": too_long}}),
    ):
        response = client.request(method, path, json=body)
        assert response.status_code == 400, (path, response.text)
        assert "512 bytes" in response.json()["detail"]
    # each fits a key; the three together, escaped as JSON (two bytes per quote), are too long for a plain dedup
    # key (control characters, six bytes escaped, are no part of an id: a 400)
    longest = {"user_id": EMOJI * 128, "agent_id": '"' * 254 + "a", "run_id": '"' * 254 + "r"}
    message = {"messages": [{"role": "user", "content": "I keep bees"}], "infer": False, **longest}
    first = client.post("/v3/memories/add/", json=message)
    assert first.status_code == 200, first.text
    assert [r["event"] for r in first.json()["results"]] == ["ADD"]
    again = client.post("/v3/memories/add/", json=message)  # the same text for the same three: found, not stored
    assert again.status_code == 200, again.text
    assert [r["event"] for r in again.json()["results"] if r["event"] == "ADD"] == []
    assert [m["memory"] for m in memories_of(client, user_id=longest["user_id"])] == ["I keep bees"]
    created = client.post("/v1/users/", json={"user_id": EMOJI * 128})
    assert created.status_code == 201, created.text


def test_project_settings_and_names_are_bounded(server: Server, tenant: Tenant) -> None:
    client = http(server, tenant)
    project = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    for body in (
        {"custom_instructions": "x" * 20_001},
        {"custom_categories": [{f"c{i}": "d"} for i in range(101)]},
        {"name": "n" * 256},
    ):
        response = client.patch(project, json=body)
        assert 400 <= response.status_code < 500, response.text
    assert client.patch(project, json={"custom_instructions": "x" * 20_000}).status_code == 200
    assert client.get(project).json()["custom_instructions"] == "x" * 20_000


def test_an_export_larger_than_a_response_may_be_is_413(
    server: Server, tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = http(server, tenant)
    client.post(
        "/v3/memories/add/",
        json={"messages": [{"role": "user", "content": "I keep bees"}], "user_id": "a", "infer": False},
    )
    schema = {"type": "object", "properties": {"memories": {"type": "array"}}}
    monkeypatch.setattr(reports, "MAX_EXPORT_BYTES", 10)  # the server runs in this process
    response = client.post("/v1/exports/", json={"schema": schema, "filters": {"user_id": "a"}})
    assert response.status_code == 413, response.text
    assert "Narrow the filters" in response.json()["detail"]
    monkeypatch.undo()
    created = client.post("/v1/exports/", json={"schema": schema, "filters": {"user_id": "a"}})
    assert created.status_code == 201, created.text
    huge_schema = {**schema, "description": HUGE}
    refused = client.post("/v1/exports/", json={"schema": huge_schema, "filters": {"user_id": "a"}})
    assert refused.status_code == 413 and "at most 100,000" in refused.json()["detail"]
