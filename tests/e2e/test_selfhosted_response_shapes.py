"""The exact wire shapes of the self-hosted answers, byte for byte except ids,
tokens and timestamps, and the OpenAPI description of them: every route declares a named response model.

The answers are built from typed response models (mnemo.api.selfhosted.responses); these tests pin what the
models must keep: key order, keys sent only when they apply, null versus absent, and value formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from mnemo.composition.container import build_container
from tests.conftest import CachedModelRegistry
from tests.e2e.auth.conftest import ADMIN, ADMIN_KEY, MEMBER, auth_settings

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ISO_UTC = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00")
# as pydantic writes an aware datetime (Mem0's users, keys, request logs and entities): Z, a fraction when not zero
ISO_Z = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z")
JWT = re.compile(r"eyJ[\w-]+\.[\w-]+\.[\w-]+")
API_KEY = re.compile(r"m0sk_[A-Za-z0-9_-]{43}")
KEY_PREFIX = re.compile(r"m0sk_[A-Za-z0-9_-]{7}")
LATENCY = re.compile(r'"latency_ms":\d+\.\d+(e-?\d+)?')
PLATFORM_PREFIXES = ("/v1/", "/v2/", "/v3/", "/api/v1/")


def wire(response: Any, status: int = 200) -> str:
    """The body as sent, with ids, tokens, keys, timestamps and latencies replaced by placeholders: <ts> for the
    memory timestamps (`+00:00`), <zts> for those Mem0 writes through pydantic (`Z`)."""
    assert response.status_code == status, (response.request.method, response.request.url, response.text)
    assert response.headers["content-type"] == "application/json"
    text: str = response.text
    for pattern, placeholder in (
        (JWT, "<jwt>"),
        (API_KEY, "<key>"),
        (KEY_PREFIX, "<prefix>"),
        (UUID, "<id>"),
        (ISO_UTC, "<ts>"),
        (ISO_Z, "<zts>"),
        (LATENCY, '"latency_ms":<ms>'),
    ):
        text = pattern.sub(placeholder, text)
    return text


def keys(item: dict[str, Any]) -> list[str]:
    return list(item)


# ---- memories ------------------------------------------------------------------------------------------------

MEMORY_HEAD = ["id", "memory", "hash", "metadata"]


def test_the_memory_answers_keep_their_exact_shapes(client: TestClient) -> None:
    added = client.post(
        "/memories",
        json={
            "messages": [
                {"role": "user", "content": "I love pizza"},
                {"role": "assistant", "content": "Noted, pizza it is", "name": "bot"},
            ],
            "user_id": "alice",
            "agent_id": "ag",
            "metadata": {"src": "t", "n": 1},
            "expiration_date": "2099-12-31",
            "infer": False,
        },
    )
    # infer=false: actor_id and role are always sent, actor_id null when the message has no name; then ours, the
    # LLM usage of the add (none called here)
    assert wire(added) == (
        '{"results":[{"id":"<id>","memory":"I love pizza","event":"ADD","actor_id":null,"role":"user"},'
        '{"id":"<id>","memory":"Noted, pizza it is","event":"ADD","actor_id":"bot","role":"assistant"}],'
        '"llm_usage":{"calls":0,"input_tokens":0,"output_tokens":0}}'
    )
    first, second = (r["id"] for r in added.json()["results"])

    # one memory: score is sent as null, the optional keys only when set, then its sources
    assert wire(client.get(f"/memories/{first}")) == (
        '{"id":"<id>","memory":"I love pizza","hash":"3341068d21d0b7b773518d08d21450b0","metadata":{"src":"t","n":1},'
        '"score":null,"created_at":"<ts>","updated_at":"<ts>","user_id":"alice","agent_id":"ag","role":"user",'
        '"expiration_date":"2099-12-31","sources":[{"index":0,"role":"user","content":"I love pizza"}]}'
    )
    got = client.get(f"/memories/{second}").json()
    optional = ["user_id", "agent_id", "actor_id", "role", "expiration_date"]
    assert keys(got) == [*MEMORY_HEAD, "score", "created_at", "updated_at", *optional, "sources"]
    assert got["sources"] == [{"index": 1, "role": "assistant", "content": "Noted, pizza it is", "name": "bot"}]

    # a list: no score; metadata null when the memory has none; run and app ids when set
    client.post(
        "/memories",
        json={"messages": [{"role": "user", "content": "Plain note"}], "run_id": "r1", "app_id": "a1", "infer": False},
    )
    assert wire(client.get("/memories", params={"run_id": "r1"})) == (
        '{"results":[{"id":"<id>","memory":"Plain note","hash":"790667d43e63acd000265df1079a8853","metadata":null,'
        '"created_at":"<ts>","updated_at":"<ts>","run_id":"r1","app_id":"a1","role":"user"}]}'
    )

    # no id (an admin's listing of every memory): Mem0's stored-row shape, ids and expiration_date always sent
    # (null when unset), metadata {} when empty; then the keys Mem0 has no place for, when set
    everything = client.get("/memories", params={"top_k": 1000}).json()["results"]
    stored = ["id", "memory", "user_id", "agent_id", "run_id", "hash", "expiration_date", "metadata"]
    assert [keys(m) for m in everything] == [
        [*stored, "created_at", "updated_at", "app_id", "role"],
        [*stored, "created_at", "updated_at", "actor_id", "role"],
        [*stored, "created_at", "updated_at", "role"],
    ]
    plain_note, named, pizza = everything
    assert wire(client.get("/memories")) == (
        '{"results":[{"id":"<id>","memory":"Plain note","user_id":null,"agent_id":null,"run_id":"r1",'
        '"hash":"790667d43e63acd000265df1079a8853","expiration_date":null,"metadata":{},"created_at":"<ts>",'
        '"updated_at":"<ts>","app_id":"a1","role":"user"},'
        '{"id":"<id>","memory":"Noted, pizza it is","user_id":"alice","agent_id":"ag","run_id":null,'
        '"hash":"02a66e7f61a8853e5a00ea89bedd2292","expiration_date":"2099-12-31","metadata":{"src":"t","n":1},'
        '"created_at":"<ts>","updated_at":"<ts>","actor_id":"bot","role":"assistant"},'
        '{"id":"<id>","memory":"I love pizza","user_id":"alice","agent_id":"ag","run_id":null,'
        '"hash":"3341068d21d0b7b773518d08d21450b0","expiration_date":"2099-12-31","metadata":{"src":"t","n":1},'
        '"created_at":"<ts>","updated_at":"<ts>","role":"user"}]}'
    )
    assert (plain_note["run_id"], named["id"], pizza["id"]) == ("r1", second, first)

    # inferred memories: only id, memory and event in the add; attributed_to in the list
    inferred = client.post(
        "/memories",
        json={"messages": [{"role": "user", "content": "I play the violin every Sunday."}], "user_id": "bob"},
    ).json()["results"]
    assert inferred and all(keys(r) == ["id", "memory", "event"] for r in inferred)
    listed = client.get("/memories", params={"user_id": "bob"}).json()["results"]
    assert [keys(m) for m in listed] == [[*MEMORY_HEAD, "created_at", "updated_at", "user_id", "attributed_to"]] * len(
        inferred
    )
    assert all(m["metadata"] is None for m in listed)

    # search: a real score in place of the null, score_details only with explain
    plain = client.post("/search", json={"query": "pizza", "filters": {"user_id": "alice"}}).json()["results"]
    assert plain
    hit = [*MEMORY_HEAD, "score", "created_at", "updated_at", "user_id", "agent_id"]
    assert keys(plain[0])[: len(hit)] == hit
    assert all("score_details" not in r and "sources" not in r and isinstance(r["score"], float) for r in plain)
    explained = client.post(
        "/search", json={"query": "pizza", "filters": {"user_id": "alice"}, "explain": True, "threshold": 0}
    ).json()["results"]
    assert explained and all(keys(r)[-1] == "score_details" for r in explained)
    assert keys(explained[0]["score_details"]) == [
        "semantic_score",
        "bm25_score",
        "bm25_relative",
        "bm25_raw",
        "entity_boost",
        "answer_boost",
        "raw_score",
        "max_possible_score",
        "final_score",
        "threshold",
    ]
    assert explained[0]["score_details"]["threshold"] == 0.0
    assert (
        '"threshold":0.0}'
        in client.post(
            "/search", json={"query": "pizza", "user_id": "alice", "explain": True, "threshold": 0, "top_k": 1}
        ).text
    )

    # update, delete and the history: every key always sent, nulls included
    assert wire(client.put(f"/memories/{first}", json={"text": "I love pasta"})) == (
        '{"message":"Memory updated successfully!"}'
    )
    assert wire(client.put(f"/memories/{first}", json={"expiration_date": None})) == (
        '{"message":"Memory updated successfully!"}'
    )
    assert "expiration_date" not in client.get(f"/memories/{first}").json()
    assert wire(client.delete(f"/memories/{first}")) == '{"message":"Memory deleted successfully"}'
    entry = '{{"id":"<id>","memory_id":"<id>","old_memory":{},"new_memory":{},"event":"{}","created_at":"<ts>",'
    entry += '"updated_at":"<ts>","is_deleted":{},"actor_id":null,"role":"user"}}'
    assert wire(client.get(f"/memories/{first}/history")) == "[{}]".format(
        ",".join(
            [
                entry.format("null", "null", "ADD", "false"),  # deleted: its texts erased
                entry.format("null", "null", "UPDATE", "false"),
                entry.format("null", "null", "UPDATE", "false"),
                entry.format("null", "null", "DELETE", "true"),
            ]
        )
    )
    assert wire(client.delete("/memories", params={"run_id": "r1"})) == '{"message":"All relevant memories deleted"}'
    assert wire(client.post("/reset")) == '{"message":"All memories reset"}'
    assert wire(client.get("/memories", params={"user_id": "alice"})) == '{"results":[]}'


def test_configuration_and_entities_keep_their_exact_shapes(client: TestClient) -> None:
    assert wire(client.get("/configure")) == (
        '{"version":"v1.1","embedder":{"provider":"local","config":{}},"llm":null,"custom_instructions":null}'
    )
    assert wire(client.post("/configure", json={"custom_instructions": "Food."})) == (
        '{"message":"Configuration set successfully"}'
    )
    assert client.get("/configure").json()["custom_instructions"] == "Food."
    # a section as it was sent: a provider without its config is shown without one, an explicit null as null
    assert client.post("/configure", json={"llm": {"provider": "openai"}}).status_code == 200
    assert wire(client.get("/configure")).endswith('"llm":{"provider":"openai"},"custom_instructions":"Food."}')
    assert client.post("/configure", json={"llm": {"provider": "openai", "config": None}}).status_code == 200
    assert client.get("/configure").json()["llm"] == {"provider": "openai", "config": None}
    providers = client.get("/configure/providers").json()
    assert keys(providers) == ["llm", "embedder"] and "local" in providers["embedder"]

    for user in ("alice", "bob"):
        client.post(
            "/memories", json={"messages": [{"role": "user", "content": "hi"}], "user_id": user, "infer": False}
        )
    assert wire(client.get("/entities")) == (
        '[{"id":"alice","type":"user","total_memories":1,"created_at":"<zts>","updated_at":"<zts>"},'
        '{"id":"bob","type":"user","total_memories":1,"created_at":"<zts>","updated_at":"<zts>"}]'
    )
    assert wire(client.delete("/entities/user/bob")) == '{"message":"Entity deleted","deleted_memories":1}'


# ---- accounts, keys and the request log (authentication on) ---------------------------------------------------


@pytest.fixture
def api(data_dir: Path, registry: CachedModelRegistry) -> Iterator[TestClient]:
    container = build_container(auth_settings(data_dir), registry)
    with TestClient(create_app(container)) as client:
        yield client
    container.close()


def test_the_account_answers_keep_their_exact_shapes(api: TestClient) -> None:
    assert wire(api.get("/auth/setup-status")) == '{"needsSetup":true}'
    tokens = '{"access_token":"<jwt>","refresh_token":"<jwt>","token_type":"bearer","expires_in":1800}'
    registered = api.post("/auth/register", json=ADMIN)
    assert wire(registered) == tokens
    assert wire(api.get("/auth/setup-status")) == '{"needsSetup":false}'
    assert wire(api.post("/auth/refresh", json={"refresh_token": registered.json()["refresh_token"]})) == tokens
    signed_in = api.post("/auth/login", json={"email": ADMIN["email"], "password": ADMIN["password"]})
    assert wire(signed_in) == tokens
    admin = {"Authorization": f"Bearer {signed_in.json()['access_token']}"}
    assert wire(api.get("/auth/me", headers=admin)) == (
        '{"id":"<id>","name":"Ada","email":"ada@example.com","role":"admin","created_at":"<zts>","last_login_at":"<zts>"}'
    )
    assert wire(api.patch("/auth/me", json={"name": "Ada L."}, headers=admin)).startswith(
        '{"id":"<id>","name":"Ada L."'
    )

    # a user that never signed in: last_login_at is sent as null
    member = (
        '{"id":"<id>","name":"Bob","email":"bob@example.com","role":"member","created_at":"<zts>","last_login_at":null}'
    )
    created = api.post("/users", json=MEMBER, headers=admin)
    assert wire(created, 201) == member
    assert wire(api.get("/users", headers=admin)).endswith("," + member + "]")

    assert wire(api.get("/api-keys", headers=admin)) == "[]"
    key = api.post("/api-keys", json={"label": "agent"}, headers=admin)
    assert wire(key, 201) == '{"id":"<id>","key":"<key>","label":"agent","key_prefix":"<prefix>","created_at":"<zts>"}'
    assert wire(api.get("/api-keys", headers=admin)) == (
        '[{"id":"<id>","label":"agent","key_prefix":"<prefix>","created_at":"<zts>","last_used_at":null}]'
    )
    api.get("/entities", headers={"X-API-Key": key.json()["key"], "X-Request-ID": "shape-1"})
    assert wire(api.get("/requests", params={"limit": 1}, headers={"X-API-Key": ADMIN_KEY})) == (
        '[{"id":"<id>","method":"GET","path":"/entities","status_code":200,"latency_ms":<ms>,"auth_type":"api_key",'
        '"user_id":"<id>","key_prefix":"<prefix>","request_id":"shape-1","created_at":"<zts>"}]'
    )
    assert wire(api.get("/api-keys", headers=admin)).endswith('"last_used_at":"<zts>"}]')
    assert wire(api.delete(f"/api-keys/{key.json()['id']}", headers=admin)) == '{"message":"API key revoked."}'
    assert wire(api.delete(f"/users/{created.json()['id']}", headers=admin)) == '{"message":"User deleted."}'
    changed = api.post(
        "/auth/change-password",
        json={"current_password": ADMIN["password"], "new_password": "another password"},
        headers=admin,
    )
    assert wire(changed) == '{"message":"Password updated."}'


# ---- the OpenAPI description --------------------------------------------------------------------------------


def named_schema(schema: dict[str, Any]) -> str:
    """The component a success schema refers to (directly or as the items of an array)."""
    if schema.get("type") == "array":
        schema = schema["items"]
    ref: str = schema["$ref"]
    return ref.rsplit("/", 1)[1]


def test_every_self_hosted_route_declares_a_described_response_model(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    checked = 0
    for path, methods in spec["paths"].items():
        if path.startswith(PLATFORM_PREFIXES) or path == "/mcp":  # JSON-RPC answers: tests/e2e/mcp
            continue
        for method, operation in methods.items():
            successes = {code: r for code, r in operation["responses"].items() if code.startswith("2")}
            assert len(successes) == 1, (method, path, list(operation["responses"]))
            ((code, success),) = successes.items()
            assert code == ("201" if (method, path) in {("post", "/api-keys"), ("post", "/users")} else "200")
            name = named_schema(success["content"]["application/json"]["schema"])
            # a name shared with another model would be disambiguated with its module path
            assert "__" not in name, (method, path, name)
            undescribed = [p for p, s in components[name]["properties"].items() if not s.get("description")]
            assert not undescribed, (name, undescribed)
            for status, response in operation["responses"].items():
                if status != "422" and status[0] in "45":
                    assert "$ref" in response["content"]["application/json"]["schema"], (method, path, status)
            checked += 1
    assert checked == 31  # with the dashboard's /generate-instructions and /auth/onboarding-complete, and /health
    # keys sent only when set are optional and never promise a null
    listed = components["ListedMemory"]
    assert listed["required"] == ["id", "memory", "hash", "metadata", "created_at", "updated_at"]
    assert listed["properties"]["user_id"]["type"] == "string"
    assert components["MemoryDetail"]["properties"]["score"]["type"] == "null"
    assert components["ErrorOut"]["required"] == ["detail"]
