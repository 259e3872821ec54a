"""POST /v1/memories/import/ and POST /v1/event/{id}/cancel/ (ours), on both backends: an export of one project
(ours, and the Mem0 shape of its memories) imported into another gives the same memories; a mixed list is
imported as far as it can be, each refusal with its reason; a job is cancelled before it runs, or while it runs
(an import stops with what it added); the bounds are 4xx that name them; a READER may do neither."""

from __future__ import annotations

import importlib
import json
import time
from typing import Any

import httpx
import pytest

from mnemo.services.platform.jobs.imports import PART_SECONDS, ImportJobs
from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant, wait_for_event
from tests.support.waits import LONG_HTTP_TIMEOUT, seconds

FIELDS = ("id", "memory", "user_id", "agent_id", "app_id", "run_id", "metadata", "categories", "created_at")
EXPORT_SCHEMA = {
    "type": "object",
    "properties": {"memories": {"type": "array", "items": {"type": "object", "properties": {k: {} for k in FIELDS}}}},
}
EVERYONE = {"OR": [{"user_id": "*"}, {"agent_id": "*"}, {"run_id": "*"}]}
SEEDS: list[dict[str, Any]] = [
    {
        "text": "I love cooking Italian food",
        "ids": {"user_id": "alice"},
        "metadata": {"source": "chat"},
        "timestamp": 1_700_000_000,
    },
    {"text": "Prefers window seats on long flights", "ids": {"user_id": "alice", "agent_id": "travel-bot"}},
    {"text": "Bob is allergic to peanuts", "ids": {"user_id": "bob"}, "metadata": {"severity": "high"}},
    {"text": "Answers customers in French", "ids": {"agent_id": "support-bot"}},
    {"text": "Carol is planning a garden party", "ids": {"user_id": "carol", "app_id": "planner", "run_id": "r1"}},
]
CATEGORIES = [{"food": "meals, cooking and diets"}, {"travel": "trips, flights and holidays"}]


def client(server: Server, tenant: Tenant) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers=tenant.headers, timeout=LONG_HTTP_TIMEOUT)


def seed(http: httpx.Client) -> None:
    for memory in SEEDS:
        body = {
            "messages": [{"role": "user", "content": memory["text"]}],
            "infer": False,
            "custom_categories": CATEGORIES,
            "metadata": memory.get("metadata", {}),
            **memory["ids"],
        }
        if "timestamp" in memory:
            body["timestamp"] = memory["timestamp"]
        response = http.post("/v3/memories/add/", json=body)
        assert response.status_code == 200, response.text


def memories_of(http: httpx.Client) -> list[dict[str, Any]]:
    page = http.post("/v3/memories/", params={"page": 1, "page_size": 1000}, json={"filters": EVERYONE})
    assert page.status_code == 200, page.text
    return list(page.json()["results"])


def same(memory: dict[str, Any]) -> tuple[Any, ...]:
    """What must survive an export and an import (created_at to the second: an import keeps whole seconds)."""
    ids = tuple(memory.get(name) for name in ("user_id", "agent_id", "app_id", "run_id"))
    categories = tuple(sorted(memory.get("categories") or []))
    return (
        memory["memory"],
        ids,
        json.dumps(memory.get("metadata") or {}, sort_keys=True),
        categories,
        memory["created_at"][:19],
    )


def import_(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = http.post("/v1/memories/import/", json=body)
    assert response.status_code == 200, response.text
    queued: dict[str, Any] = response.json()
    assert queued["status"] == "PENDING" and queued["event_id"]
    return queued


def wait_done(server: Server, tenant: Tenant, event_id: str) -> dict[str, Any]:
    return wait_for_event(server, tenant, event_id, timeout=120)


def test_an_export_of_ours_imported_into_another_project_gives_the_same_memories(server: Server) -> None:
    source, target = new_tenant(server, "source"), new_tenant(server, "target")
    http = client(server, source)
    seed(http)
    exported = http.post("/v1/exports/", json={"schema": EXPORT_SCHEMA, "filters": EVERYONE})
    assert exported.status_code == 201, exported.text
    result = http.post("/v1/exports/get/", json={"memory_export_id": exported.json()["id"]}).json()
    assert len(result["memories"]) == len(SEEDS)

    queued = import_(client(server, target), {"items": result, "format": "auto"})
    assert (queued["format"], queued["total"], queued["queued"], queued["refused"]) == ("mnemo", 5, 5, [])
    event = wait_done(server, target, queued["event_id"])

    assert event["status"] == "SUCCEEDED", event
    assert event["event_type"] == "IMPORT" and event["progress"] == {"done": 5, "total": 5}
    assert event["payload"] == {"format": "mnemo", "total": 5}  # the items are not repeated
    assert [r["index"] for r in event["results"]] == [0, 1, 2, 3, 4]
    assert all(r["status"] == "ADDED" and len(r["memory_ids"]) == 1 for r in event["results"])
    before, after = memories_of(http), memories_of(client(server, target))
    assert sorted(map(same, after)) == sorted(map(same, before))
    assert {m["id"] for m in after}.isdisjoint({m["id"] for m in before})  # new memories, of the target project
    food = [m for m in after if m["memory"].startswith("I love cooking")]
    assert food[0]["categories"] == ["food"] and food[0]["created_at"].startswith("2023-11-14T22:13:20")


def test_mem0s_shape_of_the_memories_imports_the_same_memories(server: Server) -> None:
    source, target = new_tenant(server, "mem0-source"), new_tenant(server, "mem0-target")
    http = client(server, source)
    seed(http)
    page = http.post("/v3/memories/", params={"page": 1, "page_size": 100}, json={"filters": EVERYONE}).json()
    assert set(page) >= {"count", "results"}  # get_all's answer, as Mem0's platform gives it

    queued = import_(client(server, target), {"items": page, "format": "mem0"})
    assert queued["format"] == "mem0" and queued["queued"] == len(SEEDS)
    assert wait_done(server, target, queued["event_id"])["status"] == "SUCCEEDED"
    assert sorted(map(same, memories_of(client(server, target)))) == sorted(map(same, memories_of(http)))

    # a bare list of Mem0 memories (one get_all page), and a get_memory_export object shaped by a schema
    again = new_tenant(server, "mem0-again")
    bare = import_(client(server, again), {"items": page["results"][:2]})
    assert bare["format"] == "items" and wait_done(server, again, bare["event_id"])["status"] == "SUCCEEDED"
    shaped = {"user_id": "dana", "facts": ["Dana runs marathons", "Dana lives in Porto"], "summary": "Dana"}
    profile = import_(client(server, again), {"items": shaped, "format": "mem0"})
    assert profile["queued"] == 2 and wait_done(server, again, profile["event_id"])["status"] == "SUCCEEDED"
    dana = client(server, again).get("/v1/memories/", params={"user_id": "dana"}).json()
    assert sorted(m["memory"] for m in dana) == ["Dana lives in Porto", "Dana runs marathons"]


def test_a_mixed_list_is_imported_as_far_as_it_can_be(server: Server, tenant: Tenant) -> None:
    http = client(server, tenant)
    items: list[Any] = [
        {"memory": "Erin keeps bees", "user_id": "erin", "metadata": {"hive": 2}},
        {"messages": [{"role": "user", "content": "I moved to Lisbon last spring."}], "infer": False},  # default id
        42,
        {"memory": "An app's memory", "app_id": "only-an-app"},  # an app alone is a scope
        {"messages": [{"role": "user", "content": {"type": "image_url", "image_url": {"url": "x"}}}]},
        {"memory": "x" * 100_001, "user_id": "erin"},
        {"memory": "both", "messages": "and a conversation", "user_id": "erin"},
        {"memory": "Bad metadata", "user_id": "erin", "metadata": "not an object"},
        {"memory": "Bad date", "user_id": "erin", "created_at": "yesterday-ish"},
        {"text": "Erin's dog is called Rex", "user_id": "erin", "categories": ["pets"]},
        {"memory": "   ", "user_id": "erin"},
    ]
    queued = import_(http, {"items": items, "user_id": "frank"})
    reasons = {r["index"]: r["reason"] for r in queued["refused"]}
    assert queued["total"] == 11 and queued["queued"] == 4 and sorted(reasons) == [2, 4, 5, 6, 7, 8, 10]
    assert "must be an object" in reasons[2]
    assert "multimodal" in reasons[4]
    assert "100,000" in reasons[5]  # an item is bounded as one add is
    assert "not both" in reasons[6]
    assert "metadata must be an object" in reasons[7]
    assert "created_at" in reasons[8]
    assert "empty" in reasons[10]

    event = wait_done(server, tenant, queued["event_id"])

    assert event["status"] == "PARTIALLY_COMPLETED", event
    assert "7 of 11 items were not imported (7 refused, 0 failed" in event["error"]
    assert [(r["index"], r["status"]) for r in event["results"]] == [
        (i, "ADDED" if i in (0, 1, 3, 9) else "REFUSED") for i in range(11)
    ]
    assert {r["index"]: r["reason"] for r in event["results"] if r["status"] == "REFUSED"} == reasons
    frank = http.get("/v1/memories/", params={"user_id": "frank"}).json()
    assert [m["memory"] for m in frank] == ["I moved to Lisbon last spring."]
    erin = {m["memory"]: m for m in http.get("/v1/memories/", params={"user_id": "erin"}).json()}
    assert set(erin) == {"Erin keeps bees", "Erin's dog is called Rex"}
    assert erin["Erin's dog is called Rex"]["categories"] == ["pets"] and erin["Erin keeps bees"]["metadata"] == {
        "hive": 2
    }
    app = http.post("/v2/memories/", json={"filters": {"app_id": "only-an-app"}}).json()
    assert [(m["memory"], m["user_id"]) for m in app] == [("An app's memory", None)]

    nothing = import_(http, {"items": [{"memory": "no scope"}, "neither"]})
    ended = wait_done(server, tenant, nothing["event_id"])
    assert ended["status"] == "FAILED" and ended["error"].startswith("No item was imported (2 refused")


def facts_of(user: str, count: int) -> list[dict[str, Any]]:
    return [{"memory": f"Imported fact number {i} about the {user} garden", "user_id": user} for i in range(count)]


def slow_import(http: httpx.Client, user: str, count: int = 1000) -> str:
    return str(import_(http, {"items": facts_of(user, count)})["event_id"])


def wait_running(http: httpx.Client, event_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + seconds(60)
    while True:
        event: dict[str, Any] = http.get(f"/v1/event/{event_id}/").json()
        if event["status"] == "RUNNING" and event["progress"]["done"] > 0:
            return event
        assert event["status"] in ("PENDING", "RUNNING") and time.monotonic() < deadline, event
        time.sleep(0.02)


def settle(server: Server, tenant: Tenant, http: httpx.Client) -> None:
    """Wait until the worker has run everything queued before: an add queued now runs after it."""
    queued = http.post(
        "/v3/memories/add/", json={"messages": [{"role": "user", "content": "I like tea."}], "user_id": "sentinel"}
    )
    assert wait_done(server, tenant, queued.json()["event_id"])["status"] == "SUCCEEDED"


def test_a_running_import_cancelled_stops_and_keeps_what_it_added(server: Server, tenant: Tenant) -> None:
    http = client(server, tenant)
    event_id = slow_import(http, "gardener")
    wait_running(http, event_id)

    cancelled = http.post(f"/v1/event/{event_id}/cancel/")

    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "CANCELLED" and cancelled.json()["id"] == event_id
    settle(server, tenant, http)
    event = http.get(f"/v1/event/{event_id}/").json()
    assert event["status"] == "CANCELLED" and event["error"].startswith("Cancelled while running:"), event
    done = event["progress"]["done"]
    assert 0 < done < 1000 and [r["index"] for r in event["results"]] == list(range(done))
    assert all(r["status"] == "ADDED" for r in event["results"])
    kept = http.get("/v1/memories/", params={"user_id": "gardener", "page": 1, "page_size": 1000}).json()
    assert kept["count"] == done
    assert {m["id"] for m in kept["results"]} == {r["memory_ids"][0] for r in event["results"]}
    again = http.post(f"/v1/event/{event_id}/cancel/")
    assert again.status_code == 409 and "already ended (CANCELLED)" in again.json()["detail"]


def test_a_pending_job_cancelled_never_runs(server: Server, tenant: Tenant) -> None:
    http = client(server, tenant)
    blocker = slow_import(http, "busy")  # the worker runs one job at a time: what is queued behind it waits
    wait_running(http, blocker)
    queued = http.post(
        "/v3/memories/add/",
        json={"messages": [{"role": "user", "content": "I collect stamps."}], "user_id": "patient"},
    ).json()

    cancelled = http.post(f"/v1/event/{queued['event_id']}/cancel/")

    assert cancelled.status_code == 200, cancelled.text
    body = cancelled.json()
    assert (body["status"], body["event_type"], body["started_at"], body["results"]) == ("CANCELLED", "ADD", None, [])
    assert body["error"] == "Cancelled before it ran: nothing was added."
    assert http.post(f"/v1/event/{blocker}/cancel/").status_code == 200
    settle(server, tenant, http)
    event = http.get(f"/v1/event/{queued['event_id']}/").json()
    assert (event["status"], event["started_at"], event["results"]) == ("CANCELLED", None, [])
    assert http.get("/v1/memories/", params={"user_id": "patient"}).json() == []


def test_cancelling_answers_404_for_what_is_not_the_projects_and_409_once_ended(server: Server, tenant: Tenant) -> None:
    http = client(server, tenant)
    stored = http.post(
        "/v3/memories/add/",
        json={"messages": [{"role": "user", "content": "I drink green tea."}], "user_id": "u", "infer": False},
    ).json()
    ended = http.post(f"/v1/event/{stored['event_id']}/cancel/")
    assert ended.status_code == 409 and "already ended (SUCCEEDED)" in ended.json()["detail"]
    assert http.post("/v1/event/7d2c4a0e-5b1f-4c3a-9e8d-000000000004/cancel/").status_code == 404
    other = client(server, new_tenant(server, "other"))
    queued = other.post(
        "/v3/memories/add/", json={"messages": [{"role": "user", "content": "I sail."}], "user_id": "o"}
    ).json()
    assert http.post(f"/v1/event/{queued['event_id']}/cancel/").status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"items": [{"memory": f"m{i}", "user_id": "u"} for i in range(1001)]}, 400, "at most 1,000 items"),
        ({"items": {"memories": [f"m{i}" for i in range(1001)]}, "user_id": "u"}, 400, "at most 1,000 items"),
        ({"items": []}, 400, "Nothing to import"),
        ({"items": {"total": 3}}, 400, "Nothing to import"),
        ({"items": [{"memory": "m", "user_id": "u"}], "format": "mnemo"}, 400, "format mnemo"),
        ({"items": {"memories": ["m"]}, "format": "items"}, 400, "format items"),
        ({"items": ["m"], "user_id": "has space"}, 400, "user_id"),
        ({"items": ["m"], "user_id": "u" * 256}, 400, "user_id is too long"),
        ({"items": "m"}, 422, "items"),
        ({"items": ["m"], "format": "csv"}, 422, "format"),
        ({"items": [{"memory": "x" * 1200, "user_id": "u"}] * 1000}, 413, "at most 1,048,576"),
    ],
)
def test_the_bounds_are_4xx_that_name_them(
    server: Server, tenant: Tenant, body: dict[str, Any], status: int, words: str
) -> None:
    response = client(server, tenant).post("/v1/memories/import/", json=body)
    assert response.status_code == status, response.text
    assert words in response.text


def worker_imports(server: Server) -> ImportJobs:
    """The imports of whoever runs the queued jobs: the server's own worker thread, or the ingest worker function
    (AWS: its own container, in this process)."""
    if server.backend == "local":
        return server.platform.imports
    platform = importlib.import_module("functions.ingest_worker.app").entry.container.get().platform
    assert platform is not None
    imports: ImportJobs = platform.imports
    return imports


def test_a_long_import_runs_in_parts_through_the_queue(server: Server, tenant: Tenant) -> None:
    imports = worker_imports(server)
    imports.part_seconds = 0.0  # a part per item: each a queue message of its own (its own deduplication id)
    try:
        queued = import_(client(server, tenant), {"items": facts_of("parts", 6)})
        event = wait_done(server, tenant, queued["event_id"])
    finally:
        imports.part_seconds = PART_SECONDS
    assert event["status"] == "SUCCEEDED" and [r["index"] for r in event["results"]] == list(range(6)), event
    assert len(client(server, tenant).get("/v1/memories/", params={"user_id": "parts"}).json()) == 6


def add_reader(server: Server, owner: Tenant) -> Tenant:
    http = client(server, owner)
    project = f"/api/v1/orgs/organizations/{owner.org_id}/projects/{owner.project_id}/"
    email = known_user(server, f"reader-{owner.project_id}@example.com")
    assert http.post(project + "members/", json={"email": email, "role": "READER"}).status_code == 200
    created = http.post(project + "api-keys/", json={"email": email, "label": "reader"})
    assert created.status_code == 201, created.text
    return Tenant(created.json()["api_key"], owner.org_id, owner.project_id, email)


def test_a_reader_may_neither_import_nor_cancel(server: Server, tenant: Tenant) -> None:
    reader = client(server, add_reader(server, tenant))
    queued = import_(client(server, tenant), {"items": ["Reads a lot"], "user_id": "r"})

    refused = reader.post("/v1/memories/import/", json={"items": ["m"], "user_id": "u"})
    assert refused.status_code == 403, refused.text
    assert reader.post(f"/v1/event/{queued['event_id']}/cancel/").status_code == 403
    assert reader.get(f"/v1/event/{queued['event_id']}/").status_code == 200  # reading it is a READER's
