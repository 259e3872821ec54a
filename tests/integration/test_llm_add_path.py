"""The LLM path of add, end to end over HTTP: an `openai` LLM on a loopback server, the real local embedder.

An inferred add makes one or two chat calls: fact extraction (`{"facts": [...]}`), then, when the scope has active
memories, the decision against those closest to the facts, listed with temporary ids "0", "1", …
(`{"memory": [{"id", "text", "event", …}]}`); with none, every fact is added without asking.
Also /configure: redaction, validation, removal of the LLM, persistence, and switching the embedder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.support.openai_server import HTTPFailure, OpenAIServer, RecordedRequest

USER = "alice"
Response = Any  # TestClient answers with httpx's or httpx2's Response, whichever starlette found installed


@pytest.fixture
def llm_server() -> Iterator[OpenAIServer]:
    with OpenAIServer(embedding_dims=64) as server:
        yield server


def llm_section(server: OpenAIServer) -> dict[str, Any]:
    return {
        "provider": "openai",
        "config": {"base_url": server.base_url, "api_key": "sk-test", "model": "test-model"},
    }


@pytest.fixture
def api(client: TestClient, llm_server: OpenAIServer) -> TestClient:
    """The app with the loopback LLM configured through POST /configure."""
    response = client.post("/configure", json={"llm": llm_section(llm_server)})
    assert response.status_code == 200, response.text
    assert response.json() == {"message": "Configuration set successfully"}
    return client


def script(server: OpenAIServer, facts: list[str], decisions: list[dict[str, Any]] | None = None) -> None:
    """Queue the replies of one add: the extracted facts, then (when there are facts) the decisions."""
    server.reply_json({"facts": facts})
    if decisions is not None:
        server.reply_json({"memory": decisions})


def kept_as_said(client: TestClient, text: str, user: str = USER) -> None:
    """A memory stored without inference (no LLM call), so that the next inferred add has one to decide against."""
    response = add(client, text, user, infer=False)
    assert response.status_code == 200, response.text


def add(client: TestClient, text: str, user: str = USER, **extra: Any) -> Response:
    return client.post("/memories", json={"messages": [{"role": "user", "content": text}], "user_id": user, **extra})


def added(client: TestClient, text: str, user: str = USER, **extra: Any) -> list[dict[str, Any]]:
    response = add(client, text, user, **extra)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def listed(client: TestClient, user: str = USER) -> list[dict[str, Any]]:
    response = client.get("/memories", params={"user_id": user})
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def searched(client: TestClient, query: str, user: str = USER) -> list[dict[str, Any]]:
    response = client.post("/search", json={"query": query, "filters": {"user_id": user}})
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def history(client: TestClient, memory_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/memories/{memory_id}/history")
    assert response.status_code == 200, response.text
    entries: list[dict[str, Any]] = response.json()
    return entries


def system_prompt(request: RecordedRequest) -> str:
    first = request.body["messages"][0]
    assert first["role"] == "system"
    content: str = first["content"]
    return content


def decision_listing(request: RecordedRequest) -> tuple[list[dict[str, str]], list[str]]:
    """The existing memories (temporary id and text) and the new facts that a decision prompt shows."""
    (system, message) = request.body["messages"]
    assert system["role"] == "system" and message["role"] == "user"
    prompt: str = message["content"]
    existing = prompt.split("Existing memories (id and text):\n", 1)[1].split("\n\nNew facts:\n", 1)[0]
    facts = prompt.split("\n\nNew facts:\n", 1)[1]
    return json.loads(existing), json.loads(facts)


def remember_lisbon(client: TestClient, server: OpenAIServer) -> str:
    script(server, ["Lives in Lisbon"])  # the user's first memory: no decision to ask for
    (result,) = added(client, "I live in Lisbon.")
    assert result["event"] == "ADD"
    memory_id: str = result["id"]
    return memory_id


# ---- ADD / NONE / UPDATE / DELETE ---------------------------------------------------------------------


def test_new_facts_are_added(api: TestClient, llm_server: OpenAIServer) -> None:
    kept_as_said(api, "I like tea.")
    script(
        llm_server,
        ["Lives in Lisbon", "Is allergic to peanuts"],
        [
            {"id": "new", "text": "Lives in Lisbon", "event": "ADD"},
            {"id": "new", "text": "Is allergic to peanuts", "event": "ADD"},
        ],
    )
    text = "I live in Lisbon and I'm allergic to peanuts."

    results = added(api, text)

    assert [(r["memory"], r["event"]) for r in results] == [
        ("Lives in Lisbon", "ADD"),
        ("Is allergic to peanuts", "ADD"),
    ]
    assert sorted(m["memory"] for m in listed(api)) == ["I like tea.", "Is allergic to peanuts", "Lives in Lisbon"]
    stored = api.get(f"/memories/{results[0]['id']}").json()
    assert stored["user_id"] == USER
    assert stored["sources"] == [{"index": 0, "role": "user", "content": text}]  # one sentence: the whole message
    assert history(api, results[0]["id"])[0]["event"] == "ADD"

    extraction, decision = llm_server.chat_requests
    for request in (extraction, decision):
        assert request.headers["authorization"] == "Bearer sk-test"
        assert request.body["model"] == "test-model"
        assert request.body["response_format"] == {"type": "json_object"}
    assert "You extract durable facts" in system_prompt(extraction)
    assert "Additional instructions from the operator" not in system_prompt(extraction)
    assert extraction.body["messages"][1]["role"] == "user"
    assert extraction.body["messages"][1]["content"].endswith(f"\n\n[0] user: {text}")
    assert decision_listing(decision) == (
        [{"id": "0", "text": "I like tea."}],
        ["Lives in Lisbon", "Is allergic to peanuts"],
    )
    assert llm_server.embedding_requests == []  # the embedder is still the local model
    assert llm_server.pending_replies == 0


def test_no_facts_means_no_decision_call_and_nothing_stored(api: TestClient, llm_server: OpenAIServer) -> None:
    script(llm_server, [])
    assert added(api, "Hi there!") == []
    assert len(llm_server.chat_requests) == 1
    assert listed(api) == []


def test_repeated_fact_decided_none_is_not_stored_again(api: TestClient, llm_server: OpenAIServer) -> None:
    memory_id = remember_lisbon(api, llm_server)
    script(llm_server, ["Lives in Lisbon"], [{"id": "0", "text": "Lives in Lisbon", "event": "NONE"}])

    assert added(api, "As I said, I live in Lisbon.") == []

    assert decision_listing(llm_server.chat_requests[-1]) == (
        [{"id": "0", "text": "Lives in Lisbon"}],
        ["Lives in Lisbon"],
    )
    assert [(m["id"], m["memory"]) for m in listed(api)] == [(memory_id, "Lives in Lisbon")]
    assert [h["event"] for h in history(api, memory_id)] == ["ADD"]


def test_repeated_fact_that_the_llm_adds_again_is_not_duplicated(api: TestClient, llm_server: OpenAIServer) -> None:
    memory_id = remember_lisbon(api, llm_server)
    script(llm_server, ["Lives in Lisbon"], [{"id": "new", "text": "Lives in Lisbon", "event": "ADD"}])

    (result,) = added(api, "I live in Lisbon, remember?")

    assert result == {"id": memory_id, "memory": "Lives in Lisbon", "event": "NONE"}
    assert len(listed(api)) == 1


def test_contradiction_updates_the_existing_memory(api: TestClient, llm_server: OpenAIServer) -> None:
    memory_id = remember_lisbon(api, llm_server)
    script(
        llm_server,
        ["Moved to Porto"],
        [{"id": "0", "text": "Lives in Porto", "event": "UPDATE", "old_memory": "Lives in Lisbon"}],
    )

    (result,) = added(api, "I moved to Porto.")

    assert result == {
        "id": memory_id,
        "memory": "Lives in Porto",
        "event": "UPDATE",
        "previous_memory": "Lives in Lisbon",
    }
    assert decision_listing(llm_server.chat_requests[-1]) == (
        [{"id": "0", "text": "Lives in Lisbon"}],
        ["Moved to Porto"],
    )
    (current,) = listed(api)
    assert (current["id"], current["memory"]) == (memory_id, "Lives in Porto")
    assert api.get(f"/memories/{memory_id}").json()["memory"] == "Lives in Porto"
    entries = history(api, memory_id)
    assert [(h["event"], h["old_memory"], h["new_memory"]) for h in entries] == [
        ("ADD", None, "Lives in Lisbon"),
        ("UPDATE", "Lives in Lisbon", "Lives in Porto"),
    ]
    # The index follows the new text.
    hits = searched(api, "Porto")
    assert hits[0]["id"] == memory_id
    assert hits[0]["memory"] == "Lives in Porto"


def test_update_to_the_same_text_changes_nothing(api: TestClient, llm_server: OpenAIServer) -> None:
    memory_id = remember_lisbon(api, llm_server)
    script(llm_server, ["Lives in Lisbon"], [{"id": "0", "text": "Lives in Lisbon", "event": "UPDATE"}])

    assert added(api, "I live in Lisbon.") == []
    assert [h["event"] for h in history(api, memory_id)] == ["ADD"]


def test_delete_with_an_add_supersedes_the_old_memory(api: TestClient, llm_server: OpenAIServer) -> None:
    old_id = remember_lisbon(api, llm_server)
    script(
        llm_server,
        ["Lives in Porto"],
        [
            {"id": "0", "text": "Lives in Lisbon", "event": "DELETE"},
            {"id": "new", "text": "Lives in Porto", "event": "ADD"},
        ],
    )

    results = added(api, "I don't live in Lisbon any more; I live in Porto now.")

    assert [(r["memory"], r["event"]) for r in results] == [("Lives in Porto", "ADD"), ("Lives in Lisbon", "DELETE")]
    new_id = results[0]["id"]
    assert results[1]["id"] == old_id
    assert new_id != old_id

    old = api.get(f"/memories/{old_id}")
    assert old.status_code == 200
    assert old.json()["replaced_by"] == new_id
    assert old.json()["state"] == "superseded"
    assert "state" not in api.get(f"/memories/{new_id}").json()

    assert [m["id"] for m in listed(api)] == [new_id]
    assert old_id not in {hit["id"] for hit in searched(api, "Lisbon")}
    assert [(h["event"], h["old_memory"], h["new_memory"], h["is_deleted"]) for h in history(api, old_id)] == [
        ("ADD", None, "Lives in Lisbon", False),
        ("DELETE", "Lives in Lisbon", None, True),
    ]

    # A superseded memory is no longer offered to the LLM as an existing memory.
    script(llm_server, ["Likes the sea"], [{"id": "new", "text": "Likes the sea", "event": "ADD"}])
    added(api, "I like the sea.")
    existing, _ = decision_listing(llm_server.chat_requests[-1])
    assert existing == [{"id": "0", "text": "Lives in Porto"}]


def test_delete_without_an_add_removes_the_memory(api: TestClient, llm_server: OpenAIServer) -> None:
    memory_id = remember_lisbon(api, llm_server)
    script(llm_server, ["Does not live in Lisbon"], [{"id": "0", "text": "Lives in Lisbon", "event": "DELETE"}])

    (result,) = added(api, "Actually I never lived in Lisbon.")

    assert result == {"id": memory_id, "memory": "Lives in Lisbon", "event": "DELETE"}
    assert listed(api) == []
    assert api.get(f"/memories/{memory_id}").status_code == 404
    assert searched(api, "Lisbon") == []


def test_ids_the_llm_made_up_are_ignored(api: TestClient, llm_server: OpenAIServer) -> None:
    memory_id = remember_lisbon(api, llm_server)
    script(
        llm_server,
        ["Lives in Madrid", "Likes green tea"],
        [
            {"id": "7", "text": "Lives in Madrid", "event": "UPDATE", "old_memory": "Lives in Lisbon"},
            {"id": "abc", "text": "Lives in Lisbon", "event": "DELETE"},
            {"id": memory_id, "text": "Lives in Lisbon", "event": "DELETE"},  # the real id was never shown
            {"id": "0", "text": "Lives in Madrid", "event": "EXPLODE"},
            "not an object",  # type: ignore[list-item]
            {"id": "new", "text": "Likes green tea", "event": "add"},
        ],
    )

    results = added(api, "I live in Madrid and I like green tea.")

    # Nothing the made-up ids name changes; the fact only they spoke of is added rather than lost.
    assert [(r["memory"], r["event"]) for r in results] == [("Likes green tea", "ADD"), ("Lives in Madrid", "ADD")]
    assert sorted(m["memory"] for m in listed(api)) == ["Likes green tea", "Lives in Lisbon", "Lives in Madrid"]
    assert [h["event"] for h in history(api, memory_id)] == ["ADD"]


def test_decisions_only_see_the_callers_memories(api: TestClient, llm_server: OpenAIServer) -> None:
    remember_lisbon(api, llm_server)
    kept_as_said(api, "I like tea.", user="bob")
    script(llm_server, ["Lives in Berlin"], [{"id": "1", "text": "Lives in Berlin", "event": "UPDATE"}])

    results = added(api, "I live in Berlin.", user="bob")

    # "1" was not offered (bob has one memory, "0"): the update is ignored, and bob's fact added rather than lost
    assert [(r["memory"], r["event"]) for r in results] == [("Lives in Berlin", "ADD")]
    assert decision_listing(llm_server.chat_requests[-1])[0] == [{"id": "0", "text": "I like tea."}]
    assert [m["memory"] for m in listed(api)] == ["Lives in Lisbon"]
    assert sorted(m["memory"] for m in listed(api, "bob")) == ["I like tea.", "Lives in Berlin"]


# ---- custom instructions ------------------------------------------------------------------------------


def test_custom_instructions_reach_the_system_prompt(api: TestClient, llm_server: OpenAIServer) -> None:
    script(llm_server, [])
    added(api, "I had pasta for lunch.", prompt="Only remember food preferences.")
    assert "Additional instructions from the operator:\nOnly remember food preferences.\n" in system_prompt(
        llm_server.chat_requests[-1]
    )

    response = api.post("/configure", json={"custom_instructions": "Remember cities only."})
    assert response.status_code == 200
    assert api.get("/configure").json()["custom_instructions"] == "Remember cities only."

    script(llm_server, [])
    added(api, "I live in Lisbon.")
    configured = system_prompt(llm_server.chat_requests[-1])
    assert "Remember cities only." in configured
    assert "Only remember food preferences." not in configured

    script(llm_server, [])
    added(api, "I had soup.", prompt="Only remember food preferences.")
    per_call = system_prompt(llm_server.chat_requests[-1])
    assert "Only remember food preferences." in per_call
    assert "Remember cities only." not in per_call  # the call's prompt replaces the configured instructions


# ---- provider failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "replies",
    [
        ["Sure! The user lives in Lisbon.", "The user lives in Lisbon."],
        [json.dumps({"facts": ["Lives in Lisbon"]}), "I would add it.", "Add it."],
        [json.dumps({"facts": "Lives in Lisbon"}), json.dumps({"facts": "Lives in Lisbon"})],
    ],
    ids=["extraction-not-json", "decision-not-json", "facts-not-a-list"],
)
def test_llm_reply_that_is_not_json_twice_leaves_the_add_to_the_extractor(
    api: TestClient, llm_server: OpenAIServer, replies: list[str]
) -> None:
    kept_as_said(api, "I like tea.")  # a memory to decide against, so that the decision is asked for
    llm_server.reply(*replies)

    response = add(api, "I live in Lisbon.")

    # Asked once more, then never a 5xx and never a lost add: the rule-based extractor reads the message.
    assert response.status_code == 200, response.text
    assert [r["memory"] for r in response.json()["results"]] == ["I live in Lisbon."]
    assert sorted(m["memory"] for m in listed(api)) == ["I like tea.", "I live in Lisbon."]
    assert len(llm_server.chat_requests) == len(replies)


def test_llm_reply_in_a_code_fence_is_accepted(api: TestClient, llm_server: OpenAIServer) -> None:
    kept_as_said(api, "I like tea.")
    llm_server.reply(
        '```json\n{"facts": ["Lives in Lisbon"]}\n```',
        'Here you go: {"memory": [{"id": "new", "text": "Lives in Lisbon", "event": "ADD"}]} Hope it helps.',
    )
    assert [r["event"] for r in added(api, "I live in Lisbon.")] == ["ADD"]
    assert llm_server.pending_replies == 0


def test_llm_auth_failure_is_502_provider_auth_failed(api: TestClient, llm_server: OpenAIServer) -> None:
    llm_server.fail_next(401)

    response = add(api, "I live in Lisbon.")

    assert response.status_code == 502
    body = response.json()
    assert body["code"] == "provider_auth_failed"
    assert set(body) == {"detail", "code", "request_id"}
    assert "sk-test" not in response.text
    assert listed(api) == []


@pytest.mark.parametrize(("status", "code"), [(429, "provider_rate_limited"), (500, "provider_unavailable")])
def test_llm_failure_on_the_decision_call_stores_nothing(
    api: TestClient, llm_server: OpenAIServer, status: int, code: str
) -> None:
    once = api.post("/configure", json={"llm": {"provider": "openai", "config": {"max_retries": 0}}})
    assert once.status_code == 200, once.text  # one attempt: the failure is the caller's at once
    kept_as_said(api, "I like tea.")
    llm_server.reply(json.dumps({"facts": ["Lives in Lisbon"]}), HTTPFailure(status))
    response = add(api, "I live in Lisbon.")
    assert response.status_code == 502
    assert response.json()["code"] == code
    assert len(llm_server.chat_requests) == 2
    assert [m["memory"] for m in listed(api)] == ["I like tea."]


# ---- /configure ---------------------------------------------------------------------------------------


def test_get_configure_redacts_the_api_key(api: TestClient, llm_server: OpenAIServer) -> None:
    response = api.get("/configure")

    assert response.status_code == 200
    config = response.json()
    assert config["llm"] == {
        "provider": "openai",
        "config": {"base_url": llm_server.base_url, "api_key": "[redacted]", "model": "test-model"},
    }
    assert config["embedder"] == {"provider": "local", "config": {}}
    assert config["version"] == "v1.1"
    assert "sk-test" not in response.text


def test_configure_rejects_a_provider_that_is_not_bundled(api: TestClient) -> None:
    before = api.get("/configure").json()

    response = api.post("/configure", json={"llm": {"provider": "groq", "config": {"api_key": "gsk-x"}}})

    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "'groq'" in detail
    assert "anthropic, azure_openai, bedrock, gemini, ollama, openai" in detail
    assert api.get("/configure").json() == before


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"llm": {"provider": "openai", "config": {"modle": "gpt-4.1"}}}, "modle"),
        ({"llm": {"provider": "openai", "config": {"temperature": "hot"}}}, "temperature"),
        ({"llm": {"provider": "openai", "settings": {}}}, "settings"),
        ({"llm": "openai"}, "llm"),
        ({"embedder": {"provider": "openai", "config": {"embedding_dims": "many"}}}, "embedding_dims"),
        ({"embedder": {"provider": "bedrock", "config": {"embedding_dims": 300}}}, "embedding_dims"),
        ({"embedder": None}, "embedder"),
        ({"custom_instructions": 42}, "custom_instructions"),
        ({"temperature": 0.2}, "temperature"),
    ],
)
def test_configure_rejects_bad_config(api: TestClient, body: dict[str, Any], named: str) -> None:
    before = api.get("/configure").json()

    response = api.post("/configure", json=body)

    assert response.status_code == 400, response.text
    assert named in response.json()["detail"]
    assert api.get("/configure").json() == before


@pytest.mark.parametrize("key", ["vector_store", "history_db_path", "graph_store", "reranker"])
def test_configure_rejects_storage_keys(client: TestClient, key: str) -> None:
    response = client.post("/configure", json={key: {"provider": "qdrant", "config": {}}})
    assert response.status_code == 400
    assert key in response.json()["detail"]
    assert "cannot be configured here" in response.json()["detail"]


def test_configure_llm_null_removes_the_llm(api: TestClient, llm_server: OpenAIServer) -> None:
    response = api.post("/configure", json={"llm": None})

    assert response.status_code == 200
    assert api.get("/configure").json()["llm"] is None

    results = added(api, "I live in Lisbon and I work as a nurse at the city hospital.")

    assert results
    assert all(r["event"] == "ADD" for r in results)
    assert llm_server.requests == []  # the heuristic extractor ran, not the LLM


def test_configuration_persists_across_a_restart(
    api: TestClient, llm_server: OpenAIServer, data_dir: Path, registry: CachedModelRegistry
) -> None:
    assert api.post("/configure", json={"custom_instructions": "Remember cities only."}).status_code == 200
    shown = api.get("/configure").json()

    restarted = build_container(Settings(data_dir=data_dir, auth_disabled=True), registry)
    try:
        llm = restarted.configuration.providers.get().llm
        assert llm is not None
        assert llm.name == "openai/test-model"
        with TestClient(create_app(restarted)) as again:
            assert again.get("/configure").json() == shown
            script(llm_server, [])
            added(again, "I live in Lisbon.")
        assert "Remember cities only." in system_prompt(llm_server.chat_requests[-1])
    finally:
        restarted.close()


def test_configure_providers_lists_the_bundled_providers(client: TestClient) -> None:
    response = client.get("/configure/providers")
    assert response.status_code == 200
    assert response.json() == {
        "llm": ["anthropic", "azure_openai", "bedrock", "gemini", "ollama", "openai"],
        "embedder": ["azure_openai", "bedrock", "gemini", "local", "ollama", "openai"],
    }


def test_configuring_the_same_provider_again_merges_its_config(api: TestClient, llm_server: OpenAIServer) -> None:
    response = api.post("/configure", json={"llm": {"provider": "openai", "config": {"model": "other-model"}}})
    assert response.status_code == 200
    config = api.get("/configure").json()["llm"]["config"]
    assert config == {"base_url": llm_server.base_url, "api_key": "[redacted]", "model": "other-model"}

    script(llm_server, [])
    added(api, "Hello.")
    request = llm_server.chat_requests[-1]
    assert request.body["model"] == "other-model"
    assert request.headers["authorization"] == "Bearer sk-test"  # the key was kept


# ---- switching the embedder ---------------------------------------------------------------------------


def openai_embedder(server: OpenAIServer, dims: int = 64) -> dict[str, Any]:
    return {
        "provider": "openai",
        "config": {"base_url": server.base_url, "model": "test-embed", "embedding_dims": dims, "api_key": "sk-emb"},
    }


def add_verbatim(client: TestClient, *texts: str) -> list[str]:
    response = client.post(
        "/memories",
        json={"messages": [{"role": "user", "content": t} for t in texts], "user_id": USER, "infer": False},
    )
    assert response.status_code == 200, response.text
    return [r["id"] for r in response.json()["results"]]


def test_switching_the_embedder_reembeds_existing_memories(
    client: TestClient, container: Container, llm_server: OpenAIServer, data_dir: Path, registry: CachedModelRegistry
) -> None:
    texts = ["I live in Lisbon", "My favourite drink is green tea", "I work as a nurse"]
    lisbon, tea, nurse = add_verbatim(client, *texts)
    assert searched(client, "green tea")[0]["id"] == tea  # with the local model

    response = client.post("/configure", json={"embedder": openai_embedder(llm_server)})

    assert response.status_code == 200, response.text
    assert sorted(llm_server.embedded_texts()) == sorted(texts)
    assert all(r.headers["authorization"] == "Bearer sk-emb" for r in llm_server.embedding_requests)
    for records, vectors in container.memory_service.store.scan():
        assert len(records) == 3
        assert vectors.shape == (3, 64)
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)

    assert searched(client, "green tea")[0]["id"] == tea
    assert searched(client, "Lisbon")[0]["id"] == lisbon
    assert searched(client, "nurse")[0]["id"] == nurse
    assert {"green tea", "Lisbon", "nurse"} <= set(llm_server.embedded_texts())  # queries embedded by the server

    (new_id,) = add_verbatim(client, "I have two cats")
    assert searched(client, "cats")[0]["id"] == new_id

    restarted = build_container(Settings(data_dir=data_dir, auth_disabled=True), registry)
    try:
        with TestClient(create_app(restarted)) as again:
            assert again.get("/configure").json()["embedder"]["config"]["api_key"] == "[redacted]"
            assert searched(again, "green tea")[0]["id"] == tea
    finally:
        restarted.close()


def test_a_failed_embedder_switch_keeps_the_old_embedder(
    client: TestClient, container: Container, llm_server: OpenAIServer, data_dir: Path, registry: CachedModelRegistry
) -> None:
    _lisbon, tea = add_verbatim(client, "I live in Lisbon", "My favourite drink is green tea")
    before = client.get("/configure").json()
    llm_server.fail_next(500)
    embedder = openai_embedder(llm_server)
    embedder["config"]["max_retries"] = 0  # one attempt: the switch fails at once

    response = client.post("/configure", json={"embedder": embedder})

    assert response.status_code == 502
    assert response.json()["code"] == "provider_unavailable"
    assert client.get("/configure").json() == before
    assert searched(client, "green tea")[0]["id"] == tea  # still indexed, with the local model's vectors
    for _records, vectors in container.memory_service.store.scan():
        assert vectors.shape[1] == 384

    restarted = build_container(Settings(data_dir=data_dir, auth_disabled=True), registry)
    try:
        with TestClient(create_app(restarted)) as again:
            assert searched(again, "green tea")[0]["id"] == tea
    finally:
        restarted.close()


# ---- retries of transient provider failures -----------------------------------------------------------


def test_a_rate_limit_on_a_synchronous_add_is_retried_not_a_502(api: TestClient, llm_server: OpenAIServer) -> None:
    llm_server.fail_next(429)  # the extraction call is throttled once; the default config retries it
    script(llm_server, ["Lives in Lisbon"])

    response = add(api, "I live in Lisbon.")

    assert response.status_code == 200, response.text
    assert [r["event"] for r in response.json()["results"]] == ["ADD"]
    assert len(llm_server.chat_requests) == 2  # the throttled call and its retry (no memory yet: no decision)
    assert llm_server.chat_requests[0].body == llm_server.chat_requests[1].body
    assert [m["memory"] for m in listed(api)] == ["Lives in Lisbon"]


@pytest.mark.parametrize(("status", "code"), [(429, "provider_rate_limited"), (500, "provider_unavailable")])
def test_a_decision_call_failing_past_its_retries_stores_nothing(
    api: TestClient, llm_server: OpenAIServer, status: int, code: str
) -> None:
    retry = api.post("/configure", json={"llm": {"provider": "openai", "config": {"max_retries": 1}}})
    assert retry.status_code == 200, retry.text
    now = {"retry-after-ms": "0"}  # the provider asks for no wait: the test does not sleep
    kept_as_said(api, "I like tea.")
    llm_server.reply(json.dumps({"facts": ["Lives in Lisbon"]}), HTTPFailure(status, now), HTTPFailure(status, now))

    response = add(api, "I live in Lisbon.")

    assert response.status_code == 502
    assert response.json()["code"] == code
    assert f"({status}) after 1 retry over " in response.json()["detail"]
    assert len(llm_server.chat_requests) == 3
    assert [m["memory"] for m in listed(api)] == ["I like tea."]


def test_an_embedder_switch_failing_past_its_retries_keeps_the_old_embedder(
    client: TestClient, llm_server: OpenAIServer
) -> None:
    add_verbatim(client, "I live in Lisbon")
    before = client.get("/configure").json()
    llm_server.fail_next(503, times=2, headers={"Retry-After": "0"})
    embedder = openai_embedder(llm_server)
    embedder["config"]["max_retries"] = 1

    response = client.post("/configure", json={"embedder": embedder})

    assert response.status_code == 502
    assert response.json()["code"] == "provider_unavailable"
    assert "(503) after 1 retry" in response.json()["detail"]
    assert client.get("/configure").json() == before


@pytest.mark.parametrize(
    ("kind", "config", "named"),
    [
        ("llm", {"max_retries": -1}, "max_retries"),
        ("llm", {"max_retries": "many"}, "max_retries"),
        ("llm", {"total_timeout": 0}, "total_timeout"),
        ("embedder", {"max_retries": 11}, "max_retries"),
        ("embedder", {"total_timeout": "long"}, "total_timeout"),
    ],
)
def test_configure_rejects_bad_retry_settings(api: TestClient, kind: str, config: dict[str, Any], named: str) -> None:
    before = api.get("/configure").json()

    response = api.post("/configure", json={kind: {"provider": "openai", "config": config}})

    assert response.status_code == 400, response.text
    assert named in response.json()["detail"]
    assert api.get("/configure").json() == before


@contextmanager
def served_with_the_llm(
    data_dir: Path, llm_server: OpenAIServer, registry: CachedModelRegistry, *, rules_beside: bool
) -> Iterator[tuple[TestClient, Container]]:
    """The app with the loopback LLM configured at start (MNEMO_LLM_*), and MNEMO_LLM_RULES_BESIDE as given."""
    section = llm_section(llm_server)
    settings = Settings(
        data_dir=data_dir,
        auth_disabled=True,
        llm_provider=section["provider"],
        llm_config=section["config"],
        llm_rules_beside=rules_beside,
    )
    container = build_container(settings, registry)
    try:
        with TestClient(create_app(container)) as client:
            yield client, container
    finally:
        container.close()


def test_with_llm_rules_beside_the_statements_the_llm_left_out_are_stored_too(
    tmp_path: Path, llm_server: OpenAIServer, registry: CachedModelRegistry
) -> None:
    """MNEMO_LLM_RULES_BESIDE: a small model misses facts; the extractor's statements of the sentences none of the
    model's facts cites are stored beside them, each citing its sentence."""
    with served_with_the_llm(tmp_path / "beside", llm_server, registry, rules_beside=True) as (client, _):
        llm_server.reply_json({"facts": [{"text": "Lives in Lisbon", "sources": [0]}]})
        results = added(client, "I live in Lisbon. My sister Ana is a nurse in Porto.")
    assert [(r["memory"], r["event"]) for r in results] == [
        ("Lives in Lisbon", "ADD"),
        ("My sister Ana is a nurse in Porto.", "ADD"),
    ]
    assert len(llm_server.chat_requests) == 1  # the extraction only: the statements cost no call


def test_with_llm_rules_beside_a_fact_citing_a_long_message_whole_leaves_its_sentences_to_be_stored(
    tmp_path: Path, llm_server: OpenAIServer, registry: CachedModelRegistry
) -> None:
    """A model's fact citing two messages, one of which shares no word with it, has that message whole as a source:
    that says nothing about which of its sentences the fact came from, so its statements, which the fact does not
    say in other words, are stored beside it."""
    with served_with_the_llm(tmp_path / "whole", llm_server, registry, rules_beside=True) as (client, _):
        llm_server.reply_json({"facts": [{"text": "Plays the cello", "sources": [0, 1]}]})
        messages = [
            {"role": "user", "content": "I play the cello."},
            {"role": "user", "content": "I live in Lisbon. My sister Ana is a nurse in Porto."},
        ]
        response = client.post("/memories", json={"messages": messages, "user_id": USER})
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [(r["memory"], r["event"]) for r in results] == [
        ("Plays the cello", "ADD"),
        ("I live in Lisbon.", "ADD"),
        ("My sister Ana is a nurse in Porto.", "ADD"),
    ]


@pytest.mark.parametrize("beside", [True, False])
def test_with_llm_rules_beside_the_users_own_words_outdate_what_the_models_fact_replaces(
    tmp_path: Path, llm_server: OpenAIServer, registry: CachedModelRegistry, beside: bool
) -> None:
    """The model's fact says no change ("Smoking: none"); the sentence it came from does ("I quit smoking last
    month"): with llm_rules_beside the change rule reads the sentence, and the older memory is outdated, replaced by
    the model's fact."""
    with served_with_the_llm(tmp_path / "words", llm_server, registry, rules_beside=beside) as (client, container):
        llm_server.reply_json({"facts": [{"text": "Smokes a pack a day", "sources": [0]}]})
        (old,) = added(client, "I smoke a pack a day.")
        llm_server.reply_json({"facts": [{"text": "Smoking: none", "sources": [0]}]})
        llm_server.reply_json({"memory": []})
        new, *beside_it = added(client, "I quit smoking last month.")
        assert beside_it == []  # the sentence the model's fact came from is not stored again
        outdated = container.memory_service.store.get(old["id"])
    assert outdated is not None and new["memory"] == "Smoking: none"
    assert (outdated.state.value, outdated.replaced_by) == (("outdated", new["id"]) if beside else ("active", None))
