"""The exact keys of the platform answers, in wire order, with what is null and what is
absent, for each variant a request picks; and the OpenAPI description of them: every platform route declares a
typed response model. (The mem0ai clients beside this file check behaviour; they do not pin keys.)

The answers are built from the response models of mnemo.api.platform.responses; these tests pin what the
models must keep.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from tests.e2e.platform.conftest import local_backend

ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$")
PLATFORM_PREFIXES = ("/v1/", "/v2/", "/v3/", "/api/v1/orgs/")

MEMORY_KEYS = [
    "id",
    "memory",
    "user_id",
    "agent_id",
    "app_id",
    "session_id",
    "metadata",
    "categories",
    "created_at",
    "updated_at",
    "expiration_date",
    "structured_attributes",
    "replaced_by",
    "synthesized",
    "source_memory_ids",
    "lifecycle_state",
]
HIT_KEYS = [
    "id",
    "memory",
    "user_id",
    "agent_id",
    "app_id",
    "run_id",
    "score",
    "score_breakdown",
    "expiration_date",
    "metadata",
    "categories",
    "created_at",
    "updated_at",
]
PAGE_KEYS = ["count", "next", "previous", "results"]


@dataclass
class Api:
    http: TestClient
    org_id: str
    project_id: str

    def call(self, method: str, path: str, status: int = 200, **kw: Any) -> Any:
        response = self.http.request(method, path, **kw)
        assert response.status_code == status, (method, path, response.text)
        assert response.headers["content-type"] == "application/json"
        return response.json()

    def add(self, text: str, **fields: Any) -> str:
        added = self.call("POST", "/v3/memories/add/", json={"messages": text, "infer": False, **fields})
        return str(added["results"][0]["id"])


@pytest.fixture(scope="module")
def api(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with local_backend(embedder, tmp_path_factory.mktemp("platform-shapes")) as container:
        assert container.platform is not None
        made = container.platform.tenancy.bootstrap("shapes@example.com", "Shapes")
        http = TestClient(create_app(container), headers={"Authorization": f"Token {made.api_key}"})
        api = Api(http, made.org.id, made.project.id)
        api.add("I drink green tea every morning.", user_id="alice", metadata={"src": "chat"})
        api.add("I play tennis on Sundays.", user_id="alice", run_id="r1")
        yield api


def test_the_memory_object_sends_every_key_in_order_nulls_included(api: Api) -> None:
    memory_id = api.add("I keep bees.", user_id="bea")
    got = api.call("GET", f"/v1/memories/{memory_id}/")
    assert list(got) == MEMORY_KEYS
    assert [got[k] for k in ("agent_id", "app_id", "session_id", "metadata", "expiration_date", "replaced_by")] == [
        None
    ] * 6
    assert (got["categories"], got["synthesized"], got["lifecycle_state"]) == (["hobbies"], False, "active")
    assert got["source_memory_ids"] == []
    assert ISO_UTC.match(got["created_at"]) and ISO_UTC.match(got["updated_at"])
    assert list(got["structured_attributes"]) == [
        "year",
        "month",
        "day",
        "hour",
        "minute",
        "day_of_week",
        "week_of_year",
        "day_of_year",
        "quarter",
        "is_weekend",
    ]
    updated = api.call("PUT", f"/v1/memories/{memory_id}/", json={"expiration_date": "2999-12-31"})
    assert list(updated) == MEMORY_KEYS and updated["expiration_date"] == "2999-12-31"


def test_each_add_answers_in_the_shape_its_request_picks(api: Api) -> None:
    stored = api.call("POST", "/v3/memories/add/", json={"messages": "I sail.", "user_id": "ann", "infer": False})
    assert list(stored) == ["message", "status", "event_id", "results", "llm_usage"]  # llm_usage: ours
    assert stored["status"] == "SUCCEEDED" and list(stored["llm_usage"]) == ["calls", "input_tokens", "output_tokens"]
    assert list(stored["results"][0]) == ["id", "data", "event"] and stored["results"][0]["data"] == {
        "memory": "I sail."
    }
    queued = api.call("POST", "/v3/memories/add/", json={"messages": "I ski.", "user_id": "ann"})
    assert list(queued) == ["event_id", "status"] and queued["status"] == "PENDING"
    queued_v1 = api.call("POST", "/v1/memories/", json={"messages": "I row.", "user_id": "ann"})
    assert [list(q) for q in queued_v1] == [["message", "status", "event_id"]]
    direct = {"messages": "I surf.", "user_id": "ann", "infer": False, "async_mode": False}
    bare = api.call("POST", "/v1/memories/", json=direct)
    assert [list(item) for item in bare] == [["id", "memory", "event"]]
    wrapped = api.call("POST", "/v1/memories/", json={**direct, "messages": "I dive.", "output_format": "v1.1"})
    assert list(wrapped) == ["results", "relations"] and wrapped["relations"] == []


def test_search_hits_and_their_fields_projection(api: Api) -> None:
    query = {"query": "What does alice drink?", "filters": {"user_id": "alice"}, "threshold": 0}
    [first, *_] = api.call("POST", "/v3/memories/search/", json=query)["results"]
    assert list(first) == HIT_KEYS and list(first["score_breakdown"]) == ["semantic", "bm25", "entity"]
    projected = api.call("POST", "/v3/memories/search/", json={**query, "fields": ["score", "agent_id"]})
    assert all(list(hit) == ["id", "agent_id", "score"] and hit["agent_id"] is None for hit in projected["results"])
    assert all(list(hit) == HIT_KEYS for hit in api.call("POST", "/v2/memories/search/", json=query))
    legacy = {"query": "tea", "user_id": "alice", "threshold": 0}
    assert isinstance(api.call("POST", "/v1/memories/search/", json=legacy), list)
    wrapped = api.call("POST", "/v1/memories/search/", json={**legacy, "output_format": "v1.1", "fields": ["memory"]})
    assert list(wrapped) == ["results", "relations"] and all(list(h) == ["id", "memory"] for h in wrapped["results"])


def test_lists_are_bare_or_paged_as_asked_and_projected(api: Api) -> None:
    body = {"filters": {"user_id": "alice"}}
    page = api.call("POST", "/v3/memories/?page=1&page_size=1", json=body)
    assert list(page) == PAGE_KEYS and page["count"] == 2 and page["previous"] is None
    assert page["next"].endswith("/v3/memories/?page=2&page_size=1") and list(page["results"][0]) == MEMORY_KEYS
    bare = api.call("POST", "/v2/memories/", json=body)
    assert isinstance(bare, list) and all(list(m) == MEMORY_KEYS for m in bare)
    assert list(api.call("POST", "/v2/memories/?page=1&page_size=5", json=body)) == PAGE_KEYS
    projected = api.call("POST", "/v2/memories/", json={**body, "fields": ["session_id", "metadata"]})
    assert {m["session_id"]: m["metadata"] for m in projected} == {None: {"src": "chat"}, "r1": None}
    assert all(list(m) == ["id", "session_id", "metadata"] for m in projected)
    assert isinstance(api.call("GET", "/v1/memories/", params={"user_id": "alice"}), list)
    assert list(api.call("GET", "/v1/memories/user/alice/", params={"page": 1, "page_size": 1})) == PAGE_KEYS


def test_keys_sent_only_when_they_apply(api: Api) -> None:
    memory_id = api.add("Temporary.", user_id="tim")
    assert api.call("DELETE", f"/v1/memories/{memory_id}/") == {"message": "Memory deleted successfully!"}
    linked = api.add("Temporary too.", user_id="tim")
    assert api.call("DELETE", f"/v1/memories/{linked}/", params={"delete_linked": "true"}) == {
        "message": "Memory deleted successfully!",
        "cascade_count": 0,
    }
    agent = api.call("POST", "/v1/agents/", 201, json={"agent_id": "helper"})
    assert list(agent) == [
        "id",
        "agent_id",
        "name",
        "metadata",
        "created_at",
        "updated_at",
        "graph_entities",
        "is_deleted",
        "project",
    ]
    assert (agent["agent_id"], agent["metadata"], agent["project"]) == ("helper", {}, api.project_id)
    api.add("I answer tickets.", agent_id="helper")
    [summary] = api.call("POST", "/v1/summary/", json={"filters": {"agent_id": "helper"}})
    assert list(summary) == ["agent_id", "total_memories", "summary", "updated_at"]
    assert api.call(
        "GET", f"/api/v1/orgs/organizations/{api.org_id}/projects/{api.project_id}/", params={"fields": "decay"}
    ) == {"decay": False}


def test_history_event_and_entity_page_keys(api: Api) -> None:
    memory_id = api.add("I moved to Porto.", user_id="pat")
    [entry] = api.call("GET", f"/v1/memories/{memory_id}/history/")
    assert list(entry) == [
        "id",
        "memory_id",
        "input",
        "old_memory",
        "new_memory",
        "user_id",
        "agent_id",
        "app_id",
        "session_id",
        "categories",
        "event",
        "metadata",
        "created_at",
        "updated_at",
    ]
    assert entry["input"] == [{"role": "user", "content": "I moved to Porto."}] and entry["old_memory"] is None
    events = api.call("GET", "/v1/events/", params={"page_size": 1})
    assert list(events) == PAGE_KEYS
    [event] = events["results"]
    assert list(event) == [
        "id",
        "event_type",
        "status",
        "payload",
        "metadata",
        "results",
        "created_at",
        "updated_at",
        "started_at",
        "completed_at",
        "latency",
        "graph_status",
        "error",
        "progress",  # ours: an import's, null for another event
        "llm_usage",  # ours: an add's LLM calls and tokens, null for another event
    ]
    assert event["graph_status"] is None and isinstance(event["latency"], float)
    entities = api.call("GET", "/v1/entities/")
    assert list(entities) == [*PAGE_KEYS, "total_users", "total_agents", "total_apps", "total_runs"]


def test_every_platform_route_declares_a_typed_answer_and_its_errors(api: Api) -> None:
    spec = api.call("GET", "/openapi.json")
    operations = [
        (method, path, operation)
        for path, item in spec["paths"].items()
        if path.startswith(PLATFORM_PREFIXES)
        for method, operation in item.items()
    ]
    assert len(operations) == 66  # 55, the five profile routes, the four of Dream, memory events, project usage
    for method, path, operation in operations:
        success = [code for code in operation["responses"] if code.startswith("2")]
        assert len(success) == 1, (method, path)
        schema = operation["responses"][success[0]]["content"]["application/json"]["schema"]
        assert "#/components/schemas/" in str(schema), (method, path, schema)  # a named model, not `{}`
        assert "401" in operation["responses"], (method, path)
    schemas = spec["components"]["schemas"]
    assert schemas["MemoryOut"]["required"] == MEMORY_KEYS and list(schemas["MemoryOut"]["properties"]) == MEMORY_KEYS
    assert schemas["SearchHitOut"]["required"] == HIT_KEYS
    assert schemas["MemoryFieldsOut"]["required"] == ["id"]  # the `fields` selection: only id is sure
