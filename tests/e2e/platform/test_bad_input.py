"""Bad input on every platform route, with an OWNER's key: malformed JSON, a body of the wrong kind, fields of
the wrong type, ids that are not ids. Each answer is a 4xx with a message the client can show — never a 500 —
and the project's memories are unchanged afterwards.

Every wrong value goes into every field of every route on the embedded backend. On the AWS one (under moto, where
each request costs several DynamoDB calls) `make test` sends a sample that still reaches every route, every field
and every wrong value: each route gets every wrong value once, in its fields taken in turn. `make fuzz`
(MNEMO_FUZZ_COVERAGE=1) sends the whole cross product there too."""

from __future__ import annotations

import os
from typing import Any

import httpx

from tests.e2e.platform.conftest import Server, Tenant
from tests.support.waits import HTTP_TIMEOUT

WRONG_VALUES: list[Any] = [
    None,
    7,
    -1,
    1e308,
    "",
    "x" * 5000,
    [],
    [1, "a"],
    {"AND": "x"},
    {"$gt": {}},
    True,
    {"user_id": "u" * 3000},  # where filters go: an id longer than any database key
    [{"memory_id": "m" * 3000}],  # where batches go
]


EXHAUSTIVE_BACKENDS = {"local", "aws"} if os.environ.get("MNEMO_FUZZ_COVERAGE", "") == "1" else {"local"}


def wrong_bodies(fields: list[str], *, exhaustive: bool, turn: int = 0) -> list[tuple[str, Any]]:
    """The (field, wrong value) pairs sent to one route: all of them, or each wrong value once with the fields taken
    in turn (every field gets one at least; `turn` shifts which field gets which value from one route to the next)."""
    if exhaustive:
        return [(field, value) for field in fields for value in WRONG_VALUES]
    count = max(len(fields), len(WRONG_VALUES)) if fields else 0
    return [(fields[i % len(fields)], WRONG_VALUES[(i + turn) % len(WRONG_VALUES)]) for i in range(count)]


def platform_routes(server: Server) -> list[tuple[str, str, dict[str, Any]]]:
    spec = httpx.get(f"{server.url}/openapi.json", timeout=HTTP_TIMEOUT).json()
    out = []
    for path, methods in sorted(spec["paths"].items()):
        if path.startswith(("/v1/", "/v2/", "/v3/", "/api/v1/")):
            for method, operation in methods.items():
                out.append((method.upper(), path, operation))
    return out


def body_fields(spec: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    schema = content.get("schema", {})
    while "$ref" in schema or "anyOf" in schema:
        if "anyOf" in schema:
            schema = next((s for s in schema["anyOf"] if s.get("type") != "null"), {})
        else:
            schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return sorted(schema.get("properties", {}))


def assert_clean_4xx(response: httpx.Response, where: Any) -> None:
    assert 400 <= response.status_code < 500, (where, response.status_code, response.text[:300])
    body = response.json()
    message = body.get("detail") or body.get("message") or body.get("error") if isinstance(body, dict) else body
    assert message, (where, body)


def test_every_platform_route_answers_bad_input_with_a_4xx(server: Server, tenant: Tenant) -> None:
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    kept = http.post(
        "/v3/memories/add/",
        json={"messages": [{"role": "user", "content": "I keep bees"}], "user_id": "alice", "infer": False},
    ).json()["results"][0]["id"]
    spec = httpx.get(f"{server.url}/openapi.json", timeout=HTTP_TIMEOUT).json()
    ids = {
        "org_id": tenant.org_id,
        "project_id": tenant.project_id,
        "memory_id": "not-a-uuid",
        "event_id": "not-an-event",
        "key_id": "not-a-key",
        "entity_type": "planet",
        "entity_id": "x",
        "webhook_id": "not-a-webhook",
        "delivery_id": "not-a-delivery",
        "job_id": "not-a-job",
    }
    tried = 0
    exhaustive = server.backend in EXHAUSTIVE_BACKENDS
    for turn, (method, template, operation) in enumerate(platform_routes(server)):
        path = template.format_map(ids)
        if method in ("POST", "PUT", "PATCH", "DELETE") and "requestBody" in operation:
            for raw in (b"{not json", b"[1, 2]", b'"text"', b"\xff\xfe"):
                response = http.request(method, path, content=raw, headers={"content-type": "application/json"})
                if response.status_code < 300 and method == "DELETE":
                    continue  # a DELETE whose body is optional may ignore a bad one; it must still not fail
                assert_clean_4xx(response, (method, template, raw))
                tried += 1
            for field, value in wrong_bodies(body_fields(spec, operation), exhaustive=exhaustive, turn=turn):
                response = http.request(method, path, json={field: value})
                assert response.status_code < 500, (method, template, field, value, response.text[:300])
                tried += 1
        elif "{" in template:  # ids that name nothing (the real org and project would be deleted here)
            for length in (1, 3000):  # short, and longer than any database key
                nothing = {name: name[0] * length for name in ids}
                response = http.request(method, template.format_map({**nothing, "entity_type": "user"}))
                assert response.status_code < 500, (method, template, length, response.text[:300])
                tried += 1
    assert tried > 500
    assert http.get(f"/v1/memories/{kept}/").json()["memory"] == "I keep bees"
    assert http.get("/v1/ping/").json()["project_id"] == tenant.project_id
