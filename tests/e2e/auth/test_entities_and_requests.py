"""GET/DELETE /entities and GET /requests over HTTP, with authentication on."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from fastapi.testclient import TestClient

from mnemo.domain.memory import now
from mnemo.domain.request_log import RequestLogEntry
from tests.e2e.auth.conftest import ADMIN_KEY, AppFactory, add_member, add_memory, new_key, ok, register_admin

# as Mem0's server writes these dates (pydantic): UTC with a Z, the fraction only when not zero
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")


def test_entities_are_counted_and_an_entity_is_deleted_with_its_memories(api: TestClient) -> None:
    admin = register_admin(api)
    member = add_member(api, admin)
    h = admin.headers
    alice_one = add_memory(api, h, "Alice plays the oboe.", user_id="alice")
    add_memory(api, h, "Alice grows tomatoes.", user_id="alice", agent_id="gardener")
    add_memory(api, h, "Bob likes chess.", user_id="bob", run_id="r-1", app_id="board-games")
    add_memory(api, h, "The gardener waters at dawn.", agent_id="gardener")

    listed = ok(api.get("/entities", headers=member.headers))
    assert [(e["type"], e["id"], e["total_memories"]) for e in listed] == [
        ("agent", "gardener", 2),
        ("run", "r-1", 1),
        ("user", "alice", 2),
        ("user", "bob", 1),
    ]
    assert all(ISO_Z.match(e["created_at"]) and ISO_Z.match(e["updated_at"]) for e in listed)
    # no app: the reference server's /entities lists users, agents and runs (the platform's lists apps too)

    bad = api.delete("/entities/app/alice", headers=h)
    assert (bad.status_code, bad.json()) == (400, {"detail": "entity_type must be one of: user, agent, run."})
    assert api.delete("/entities/user/alice", headers=member.headers).status_code == 403

    deleted = ok(api.delete("/entities/user/alice", headers=h))
    assert deleted == {"message": "Entity deleted", "deleted_memories": 2}
    assert ok(api.get("/memories", params={"user_id": "alice"}, headers=h)) == {"results": []}
    assert [x["event"] for x in ok(api.get(f"/memories/{alice_one}/history", headers=h))] == ["ADD", "DELETE"]
    assert [(e["type"], e["id"], e["total_memories"]) for e in ok(api.get("/entities", headers=h))] == [
        ("agent", "gardener", 1),
        ("run", "r-1", 1),
        ("user", "bob", 1),
    ]
    # "*" is an id like any other here, not a wildcard
    assert ok(api.delete("/entities/user/*", headers=h))["deleted_memories"] == 0
    assert len(ok(api.get("/entities", headers=h))) == 3


def test_every_api_call_is_logged_without_its_query_string(api: TestClient) -> None:
    admin = register_admin(api)
    key = new_key(api, admin)
    key_headers = {"X-API-Key": key["key"]}
    add_memory(api, key_headers, "Logged call.")
    api.get("/memories", params={"user_id": "alice", "top_k": 5}, headers=key_headers)
    api.get("/entities", headers={"X-API-Key": ADMIN_KEY})
    api.get("/entities")
    api.get("/docs")

    logged = ok(api.get("/requests", params={"limit": 200}, headers=admin.headers))
    newest: dict[str, Any] = logged[0]
    assert set(newest) == {
        "id",
        "method",
        "path",
        "status_code",
        "latency_ms",
        "auth_type",
        "user_id",
        "key_prefix",
        "request_id",
        "created_at",
    }
    seen = [(e["method"], e["path"], e["status_code"], e["auth_type"], e["key_prefix"]) for e in logged]
    me = ok(api.get("/auth/me", headers=admin.headers))["id"]
    assert seen[:5] == [
        ("GET", "/entities", 401, "none", None),
        ("GET", "/entities", 200, "admin_api_key", None),
        ("GET", "/memories", 200, "api_key", key["key_prefix"]),
        ("POST", "/memories", 200, "api_key", key["key_prefix"]),
        ("POST", "/api-keys", 201, "bearer", None),
    ]
    assert logged[2]["user_id"] == me
    assert seen[-1] == ("POST", "/auth/register", 200, "none", None)
    assert all(e["latency_ms"] >= 0 and ISO_Z.match(e["created_at"]) for e in logged)
    assert not any(e["path"].startswith(("/docs", "/requests")) for e in logged)
    assert len(ok(api.get("/requests", params={"limit": 2}, headers=admin.headers))) == 2
    assert api.get("/requests", params={"limit": 0}, headers=admin.headers).status_code == 422
    assert api.get("/requests", params={"limit": 201}, headers=admin.headers).status_code == 422


def test_old_request_log_entries_are_pruned_after_the_retention_period(make_app: AppFactory) -> None:
    api = make_app(request_log_retention_days=7)
    container = api.app.state.services  # type: ignore[attr-defined]
    old = now() - timedelta(days=8)
    recent = now() - timedelta(days=6)
    container.request_log.store.append(
        [
            RequestLogEntry("old", "GET", "/entities", 200, 1.0, "bearer", old),
            RequestLogEntry("recent", "GET", "/entities", 200, 1.0, "bearer", recent),
        ]
    )
    assert container.request_log.prune() == 1
    assert [e.id for e in container.request_log.recent(10)] == ["recent"]
