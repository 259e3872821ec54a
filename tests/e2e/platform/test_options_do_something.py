"""Every option a client sends works as the reference documents it, or is a 400 that says why: v3 add's
`async_mode=false`, search's `limit`, an import's `infer`, an export's schema sent as a string, and the paths beside
`/v1/memories/{id}/` that a wrong method reaches (a webhook body's `project_id`: test_webhooks.py)."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.e2e.platform.conftest import Server, Tenant
from tests.support.waits import LONG_HTTP_TIMEOUT

http = httpx.Client(timeout=LONG_HTTP_TIMEOUT)  # a busy machine answers slowly, never wrongly


def test_v3_add_with_async_mode_false_answers_what_it_stored(server: Server, tenant: Tenant) -> None:
    body = {"messages": "I live in Lisbon and work as a nurse.", "user_id": "sync", "async_mode": False}
    answer = http.post(f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers)
    assert answer.status_code == 200, answer.text
    stored = answer.json()
    assert stored["status"] == "SUCCEEDED" and stored["results"], stored
    listed = http.post(f"{server.url}/v3/memories/", json={"filters": {"user_id": "sync"}}, headers=tenant.headers)
    assert {r["id"] for r in stored["results"]} <= {m["id"] for m in listed.json()["results"]}


def test_search_takes_limit_as_top_k_and_refuses_the_two_disagreeing(server: Server, tenant: Tenant) -> None:
    for n in range(4):
        add = {"messages": f"Fact {n} about tea", "user_id": "lim", "infer": False}
        assert http.post(f"{server.url}/v3/memories/add/", json=add, headers=tenant.headers).status_code == 200
    query = {"query": "tea", "filters": {"user_id": "lim"}, "threshold": 0}
    limited = http.post(f"{server.url}/v3/memories/search/", json={**query, "limit": 2}, headers=tenant.headers)
    assert limited.status_code == 200 and len(limited.json()["results"]) == 2
    v1 = http.post(
        f"{server.url}/v1/memories/search/",
        json={"query": "tea", "user_id": "lim", "threshold": 0, "limit": 1},
        headers=tenant.headers,
    )
    assert v1.status_code == 200 and len(v1.json()) == 1
    both = http.post(
        f"{server.url}/v3/memories/search/", json={**query, "limit": 2, "top_k": 3}, headers=tenant.headers
    )
    assert both.status_code == 400 and "limit" in both.json()["detail"]


@pytest.mark.parametrize("infer", [0, 1, "true"])
def test_an_import_infer_that_is_not_a_boolean_is_refused(server: Server, tenant: Tenant, infer: object) -> None:
    body = {"items": [{"memory": "I drink tea"}], "user_id": "imp", "format": "items", "infer": infer}
    answer = http.post(f"{server.url}/v1/memories/import/", json=body, headers=tenant.headers)
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["body", "infer"]


def test_an_export_schema_may_be_a_string_holding_json(server: Server, tenant: Tenant) -> None:
    schema = {"type": "object", "properties": {"drinks": {"type": "string"}}}
    add = {"messages": "I drink tea", "user_id": "exp", "infer": False}
    http.post(f"{server.url}/v3/memories/add/", json=add, headers=tenant.headers)
    body = {"schema": json.dumps(schema), "filters": {"user_id": "exp"}}
    created = http.post(f"{server.url}/v1/exports/", json=body, headers=tenant.headers)
    assert created.status_code == 201, created.text
    for bad, says in (("{not json", "not JSON"), ("[" * 100 + "]" * 100, "deep")):
        refused = http.post(f"{server.url}/v1/exports/", json={**body, "schema": bad}, headers=tenant.headers)
        assert refused.status_code == 400 and says in refused.json()["detail"], refused.text


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/v1/memories/events/", "GET"),
        ("DELETE", "/v1/memories/events/", "GET"),
        ("PUT", "/v1/memories/import/", "POST"),
        ("GET", "/v1/memories/import/", "POST"),
        ("GET", "/v1/memories/search/", "POST"),
    ],
)
def test_a_wrong_method_on_a_route_beside_a_memory_id_is_a_405_naming_the_right_one(
    server: Server, tenant: Tenant, method: str, path: str, allow: str
) -> None:
    answer = http.request(method, f"{server.url}{path}", headers=tenant.headers, json={"text": "x"})
    assert answer.status_code == 405, answer.text
    assert answer.headers["allow"] == allow
