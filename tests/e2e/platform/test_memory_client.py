"""The real `mem0ai` 2.2.1 `MemoryClient` against a running server: every method of the client
except chat, webhooks and profiles, each checked for its effect."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from mem0 import MemoryClient
from mem0.exceptions import MemoryNotFoundError, ValidationError

from mnemo.domain.memory import now
from mnemo.language.en.extraction.dates import resolve_dates
from tests.e2e.platform.conftest import Server, Tenant, new_tenant, wait_for_event
from tests.support.waits import HTTP_TIMEOUT


def client_of(server: Server, tenant: Tenant) -> MemoryClient:
    return MemoryClient(api_key=tenant.key, host=server.url)


def verbatim(client: MemoryClient, text: str, **ids: Any) -> str:
    added = client.add([{"role": "user", "content": text}], infer=False, **ids)
    assert added["status"] == "SUCCEEDED"
    (result,) = added["results"]
    assert result["event"] == "ADD" and result["data"]["memory"] == text
    return str(result["id"])


def texts(page: dict[str, Any]) -> set[str]:
    return {m["memory"] for m in page["results"]}


def test_construction_pings_and_learns_the_org_and_project(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    assert (client.org_id, client.project_id, client.user_email) == (tenant.org_id, tenant.project_id, tenant.email)
    ping = httpx.get(f"{server.url}/v1/ping/", headers=tenant.headers, timeout=HTTP_TIMEOUT).json()
    assert ping == {
        "status": "ok",
        "org_id": tenant.org_id,
        "project_id": tenant.project_id,
        "user_email": tenant.email,
    }
    with pytest.raises(ValueError, match="Invalid API key"):
        MemoryClient(api_key="m0-" + "x" * 43, host=server.url)
    assert httpx.get(f"{server.url}/v1/ping/", timeout=HTTP_TIMEOUT).status_code == 401
    assert (
        httpx.get(
            f"{server.url}/v1/ping/", headers={"Authorization": f"Bearer {tenant.key}"}, timeout=HTTP_TIMEOUT
        ).status_code
        == 401
    )


def test_add_infer_true_is_queued_then_processed_by_the_worker(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    queued = client.add(
        "I moved to Lisbon last spring. I am allergic to peanuts.", user_id="alice", metadata={"src": "chat"}
    )
    assert queued["status"] == "PENDING" and queued["event_id"]
    event = wait_for_event(server, tenant, queued["event_id"])
    assert event["status"] == "SUCCEEDED", event
    assert event["event_type"] == "ADD" and event["latency"] is not None
    stored = {r["data"]["memory"] for r in event["results"]}
    moved = resolve_dates("I moved to Lisbon last spring.", now())  # the extractor writes relative dates as dates
    assert stored == {moved, "I am allergic to peanuts."} and "last spring" not in moved
    assert all(r["event"] == "ADD" and r["user_id"] == "alice" for r in event["results"])
    listed = client.get_all(filters={"user_id": "alice"})
    assert texts(listed) == stored
    assert all(m["metadata"] == {"src": "chat"} for m in listed["results"])
    # ids inside `filters` are an add's scope too
    again = client.add("My sister Ana lives in Porto.", filters={"user_id": "bob"})
    assert wait_for_event(server, tenant, again["event_id"])["status"] == "SUCCEEDED"
    assert texts(client.get_all(filters={"user_id": "bob"})) == {"My sister Ana lives in Porto."}


def test_get_update_history_delete(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    memory_id = verbatim(client, "I play the cello", user_id="alice", run_id="r1")
    got = client.get(memory_id)
    assert got["memory"] == "I play the cello" and got["user_id"] == "alice" and got["session_id"] == "r1"
    assert got["structured_attributes"]["year"] >= 2026 and got["lifecycle_state"] == "active"

    updated = client.update(memory_id, text="I play the viola", metadata={"level": "advanced"})
    assert updated["id"] == memory_id and updated["memory"] == "I play the viola"
    assert updated["metadata"] == {"level": "advanced"}
    client.update(memory_id, expiration_date="2999-01-01")
    assert client.get(memory_id)["expiration_date"] == "2999-01-01"
    client.update(memory_id, expiration_date=None)  # an explicit null clears
    assert client.get(memory_id)["expiration_date"] is None
    # a timestamp alone moves when the memory happened; date filters see the new day
    client.update(memory_id, timestamp=1_700_000_000)  # 2023-11-14T22:13:20Z
    assert client.get(memory_id)["created_at"].startswith("2023-11-14T22:13:20")
    dated = client.get_all(filters={"AND": [{"user_id": "alice"}, {"created_at": {"lt": "2024-01-01"}}]})
    assert [m["id"] for m in dated["results"]] == [memory_id]

    history = client.history(memory_id)
    assert [h["event"] for h in history] == ["ADD", "UPDATE", "UPDATE", "UPDATE", "UPDATE"]
    assert (history[1]["old_memory"], history[1]["new_memory"]) == ("I play the cello", "I play the viola")
    assert history[0]["input"] == [{"role": "user", "content": "I play the cello"}]

    assert client.delete(memory_id) == {"message": "Memory deleted successfully!"}
    with pytest.raises(MemoryNotFoundError):
        client.get(memory_id)
    assert [h["event"] for h in client.history(memory_id)][-1] == "DELETE"
    with pytest.raises(ValidationError):
        client.get("not-a-uuid")


def test_search_uses_filters_and_rejects_top_level_ids(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    verbatim(client, "I am allergic to peanuts", user_id="alice")
    verbatim(client, "My favourite city is Lisbon", user_id="alice", metadata={"topic": "travel"})
    verbatim(client, "I am allergic to cats", user_id="bob")
    found = client.search("what food allergies do I have?", filters={"user_id": "alice"}, top_k=5)
    assert found["results"][0]["memory"] == "I am allergic to peanuts"
    assert {m["user_id"] for m in found["results"]} == {"alice"}
    first = found["results"][0]
    assert 0 < first["score"] <= 1 and set(first["score_breakdown"]) == {"semantic", "bm25", "entity"}
    assert "run_id" in first and "session_id" not in first
    only = client.search("city", filters={"AND": [{"user_id": "alice"}, {"metadata": {"topic": "travel"}}]})
    assert [m["memory"] for m in only["results"]] == ["My favourite city is Lisbon"]
    with pytest.raises(ValueError):  # refused by the client itself
        client.search("peanuts", user_id="alice")
    raw = httpx.post(
        f"{server.url}/v3/memories/search/",
        json={"query": "x", "user_id": "alice"},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert raw.status_code == 400 and "filters" in raw.json()["detail"]
    with pytest.raises(ValidationError):  # no entity id at all
        client.search("peanuts", filters={"metadata": {"topic": "travel"}})
    with pytest.raises(ValidationError):  # outside the platform grammar
        client.search("peanuts", filters={"user_id": "alice", "colour": "red"})


def test_get_all_paginates_in_the_query(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    for n in range(5):
        verbatim(client, f"Fact number {n} about alice", user_id="alice")
    first = client.get_all(filters={"user_id": "alice"}, page=1, page_size=2)
    assert first["count"] == 5 and len(first["results"]) == 2 and first["previous"] is None
    assert "page=2" in first["next"] and "page_size=2" in first["next"]
    last = client.get_all(filters={"user_id": "alice"}, page=3, page_size=2)
    assert len(last["results"]) == 1 and last["next"] is None
    everything = texts(first) | texts(client.get_all(filters={"user_id": "alice"}, page=2, page_size=2)) | texts(last)
    assert everything == {f"Fact number {n} about alice" for n in range(5)}
    assert client.get_all(filters={"user_id": "nobody"})["count"] == 0
    with pytest.raises(ValueError):
        client.get_all(user_id="alice")


def test_delete_all_by_query_and_by_filters(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    verbatim(client, "alice fact in run one", user_id="alice", run_id="r1")
    verbatim(client, "alice fact in run two", user_id="alice", run_id="r2")
    verbatim(client, "bob fact", user_id="bob")
    verbatim(client, "carol fact", user_id="carol")
    done = client.delete_all(user_id="alice", run_id="r1")
    assert done["event_id"] and done["deleted"] == 1
    assert texts(client.get_all(filters={"user_id": "alice"})) == {"alice fact in run two"}
    client.delete_all(filters={"user_id": "bob"})  # sent as a Python repr in the query string
    assert client.get_all(filters={"user_id": "bob"})["count"] == 0
    assert client.get_all(filters={"user_id": "carol"})["count"] == 1
    with pytest.raises(ValidationError):
        client.delete_all()
    client.delete_all(user_id="*", agent_id="*", app_id="*", run_id="*")
    assert client.get_all(filters={"user_id": "*"})["count"] == 0


def test_batch_update_and_delete(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    ids = [verbatim(client, f"batch memory {n}", user_id="alice") for n in range(3)]
    updated = client.batch_update(
        [{"memory_id": ids[0], "text": "batch memory zero"}, {"memory_id": ids[1], "metadata": {"k": 1}}]
    )
    assert updated == {"message": "Successfully updated 2 memories"}
    assert client.get(ids[0])["memory"] == "batch memory zero"
    assert client.get(ids[1])["metadata"] == {"k": 1}
    assert client.batch_delete([{"memory_id": ids[0]}, {"memory_id": ids[2]}]) == {
        "message": "Successfully deleted 2 memories"
    }
    assert texts(client.get_all(filters={"user_id": "alice"})) == {"batch memory 1"}
    too_many = [{"memory_id": ids[1], "text": "x"}] * 1001
    with pytest.raises(ValidationError, match="1000"):
        client.batch_update(too_many)
    with pytest.raises(MemoryNotFoundError):  # nothing is changed when one id is unknown
        client.batch_delete([{"memory_id": ids[1]}, {"memory_id": "00000000-0000-4000-8000-000000000000"}])
    assert client.get(ids[1])["memory"] == "batch memory 1"


def test_users_delete_users_and_reset(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    verbatim(client, "alice one", user_id="alice")
    verbatim(client, "alice two", user_id="alice")
    verbatim(client, "agent memory", agent_id="helper")
    verbatim(client, "run memory", run_id="session-9")
    users = client.users()
    by_name = {(e["type"], e["name"]): e for e in users["results"]}
    assert set(by_name) == {("user", "alice"), ("agent", "helper"), ("run", "session-9")}
    assert by_name[("user", "alice")]["total_memories"] == 2
    assert (users["count"], users["total_users"], users["total_agents"], users["total_runs"]) == (3, 1, 1, 1)
    client.delete_users(user_id="alice")
    assert client.get_all(filters={"user_id": "alice"})["count"] == 0
    assert {e["name"] for e in client.users()["results"]} == {"helper", "session-9"}
    entity = httpx.get(f"{server.url}/v2/entities/agent/helper/", headers=tenant.headers, timeout=HTTP_TIMEOUT).json()
    assert entity[0]["name"] == "helper" and entity[0]["type"] == "agent"
    assert (
        httpx.get(f"{server.url}/v2/entities/agent/nobody/", headers=tenant.headers, timeout=HTTP_TIMEOUT).status_code
        == 404
    )
    assert (
        httpx.delete(f"{server.url}/v2/entities/planet/x/", headers=tenant.headers, timeout=HTTP_TIMEOUT).status_code
        == 400
    )
    client.reset()
    assert client.users()["results"] == []


def test_users_lists_the_apps_of_app_only_memories_and_reset_erases_them(server: Server) -> None:
    """An app alone is a scope (an add with app_id only): users() lists the app like the other kinds, so that
    delete_users() and reset(), which delete what it lists, leave no memory behind."""
    client = client_of(server, tenant := new_tenant(server, "app-reset"))
    verbatim(client, "Prefers dark mode", app_id="web")
    verbatim(client, "Ships on Fridays", app_id="web")
    verbatim(client, "Uses zsh", app_id="cli")
    verbatim(client, "alice on the web", user_id="alice", app_id="web")
    users = client.users()
    by_name = {(e["type"], e["name"]): e for e in users["results"]}
    assert set(by_name) == {("app", "web"), ("app", "cli"), ("user", "alice")}
    assert (by_name["app", "web"]["total_memories"], by_name["app", "cli"]["total_memories"]) == (3, 1)
    web = by_name["app", "web"]
    assert web["id"] == "web" and web["metadata"] == {} and web["created_at"] <= web["updated_at"]
    assert (users["count"], users["total_users"], users["total_agents"], users["total_apps"], users["total_runs"]) == (
        3,
        1,
        0,
        2,
        0,
    )
    (one,) = httpx.get(f"{server.url}/v2/entities/app/cli/", headers=tenant.headers, timeout=HTTP_TIMEOUT).json()
    assert (one["type"], one["name"]) == ("app", "cli")

    client.delete_users(app_id="cli")  # DELETE /v2/entities/app/cli/
    assert client.get_all(filters={"app_id": "cli"})["count"] == 0
    assert {(e["type"], e["name"]) for e in client.users()["results"]} == {("app", "web"), ("user", "alice")}
    verbatim(client, "Uses fish now", app_id="cli")
    deleted = httpx.delete(
        f"{server.url}/v1/entities/app/cli/", headers=tenant.headers, timeout=HTTP_TIMEOUT
    )  # the older route
    assert deleted.status_code == 200 and deleted.json()["deleted"] == 1

    client.reset()
    assert client.users()["results"] == []
    for app in ("web", "cli"):
        assert client.get_all(filters={"app_id": app})["count"] == 0
    everything = {"OR": [{"app_id": "*"}, {"user_id": "*"}, {"agent_id": "*"}, {"run_id": "*"}]}
    assert client.get_all(filters=everything)["count"] == 0


def test_exports_summary_stats_and_feedback(server: Server, tenant: Tenant) -> None:
    client = client_of(server, tenant)
    first = verbatim(client, "I like green tea", user_id="alice")
    verbatim(client, "I work as a nurse", user_id="alice")
    verbatim(client, "bob likes coffee", user_id="bob")
    schema = {
        "type": "object",
        "properties": {
            "facts": {"type": "array", "items": {"type": "object", "properties": {"memory": {}, "user_id": {}}}},
            "user_id": {"type": "string"},
        },
    }
    created = client.create_memory_export(schema=schema, filters={"user_id": "alice"})
    assert created["id"]
    exported = client.get_memory_export(memory_export_id=created["id"])
    assert exported == {
        "facts": [
            {"memory": "I like green tea", "user_id": "alice"},
            {"memory": "I work as a nurse", "user_id": "alice"},
        ],
        "user_id": "alice",
    }
    assert client.get_memory_export(filters={"user_id": "alice"}) == exported
    with pytest.raises(MemoryNotFoundError):
        client.get_memory_export(memory_export_id="00000000-0000-4000-8000-000000000000")
    with pytest.raises(ValidationError):
        client.create_memory_export(schema=schema, filters={"metadata": {"k": "v"}})

    (summary,) = client.get_summary(filters={"user_id": "alice"})
    assert summary["user_id"] == "alice" and summary["total_memories"] == 2
    assert summary["summary"] == "- I like green tea\n- I work as a nurse"

    client.search("tea", filters={"user_id": "alice"})
    stats = httpx.get(f"{server.url}/v1/stats/", headers=tenant.headers, timeout=HTTP_TIMEOUT).json()
    assert stats["total_memories"] == 3 and stats["total_users_with_memories"] == 2
    assert stats["memories_per_user"] == {"alice": 2, "bob": 1}
    assert stats["total_retrieval_events"] >= 1 and stats["total_add_events"] == 3

    given = client.feedback(first, feedback="positive", feedback_reason="accurate")
    assert given == {"id": first, "feedback": "POSITIVE", "feedback_reason": "accurate"}
    assert client.feedback(first) == {"id": first, "feedback": None, "feedback_reason": None}
    with pytest.raises(MemoryNotFoundError):
        client.feedback("00000000-0000-4000-8000-000000000000", feedback="NEGATIVE")
    refused = httpx.post(
        f"{server.url}/v1/feedback/",
        json={"memory_id": "not-a-uuid", "feedback": "NEGATIVE"},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert refused.status_code == 400  # the reference's answer, under `error`; under `detail` for the clients
    assert refused.json() == {"detail": "Invalid memory_id", "error": "Invalid memory_id"}


def test_events_list_and_legacy_routes(server: Server, tenant: Tenant) -> None:
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    queued = http.post(
        "/v1/memories/", json={"messages": [{"role": "user", "content": "I sail on weekends."}], "user_id": "dan"}
    )
    (ack,) = queued.json()
    assert ack["status"] == "PENDING"
    assert wait_for_event(server, tenant, ack["event_id"])["status"] == "SUCCEEDED"
    sync = http.post(
        "/v1/memories/",
        json={
            "messages": [{"role": "user", "content": "I own a red kayak"}],
            "user_id": "dan",
            "infer": False,
            "output_format": "v1.1",
        },
    ).json()
    assert [r["memory"] for r in sync["results"]] == ["I own a red kayak"] and sync["relations"] == []
    listed = http.get("/v1/memories/", params={"user_id": "dan"}).json()
    assert {m["memory"] for m in listed} == {"I sail on weekends.", "I own a red kayak"}
    assert http.get("/v1/memories/").status_code == 400
    v2 = http.post("/v2/memories/", json={"filters": {"user_id": "dan"}}).json()
    assert isinstance(v2, list) and len(v2) == 2
    v2_page = http.post(
        "/v2/memories/", params={"page": 1, "page_size": 1}, json={"filters": {"user_id": "dan"}}
    ).json()
    assert v2_page["count"] == 2 and len(v2_page["results"]) == 1
    v1_search = http.post(
        "/v1/memories/search/", json={"query": "boat", "user_id": "dan", "output_format": "v1.1"}
    ).json()
    assert v1_search["results"][0]["memory"] == "I own a red kayak"
    v2_search = http.post("/v2/memories/search/", json={"query": "boat", "filters": {"user_id": "dan"}}).json()
    assert v2_search[0]["memory"] == "I own a red kayak"
    assert http.post("/v2/memories/search/", json={"query": "boat", "user_id": "dan"}).status_code == 400
    events = http.get("/v1/events/").json()
    assert events["count"] >= 2 and {e["event_type"] for e in events["results"]} == {"ADD"}
    assert http.get("/v1/event/00000000-0000-4000-8000-000000000000/").status_code == 404


def test_add_failures_are_reported(server: Server) -> None:
    tenant = new_tenant(server)
    client = client_of(server, tenant)
    with pytest.raises(ValidationError):
        client.add("I like tea", infer=False)  # no entity id
    with pytest.raises(ValidationError):
        client.add(
            [{"role": "user", "content": {"type": "image_url", "image_url": {"url": "http://x"}}}],
            user_id="u",
            infer=False,
        )
    assert client.users()["results"] == []
    assert httpx.get(f"{server.url}/v1/events/", headers=tenant.headers, timeout=HTTP_TIMEOUT).json()["count"] == 0
