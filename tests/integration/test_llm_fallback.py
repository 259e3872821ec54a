"""A model that misbehaves never fails a self-hosted add (POST /memories): garbage, JSON cut off at the output limit,
a bare empty list or no answer in time leave the add to the rule-based extractor, which stores the message's
statements; the answer says so (`fallback`) and still counts the calls spent (`llm_usage`). An add whose LLM
answered sends no `fallback` key."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.support.llm_misbehaviour import FAST_FAILING_LLM, MISBEHAVIOURS, counted_calls, script
from tests.support.openai_server import OpenAIServer

USER = "alice"
LISBON = {"messages": [{"role": "user", "content": "I live in Lisbon."}], "user_id": USER}


@pytest.fixture
def llm_server() -> Iterator[OpenAIServer]:
    with OpenAIServer(embedding_dims=64) as server:
        yield server


@pytest.fixture
def api(client: TestClient, llm_server: OpenAIServer) -> TestClient:
    config = {"base_url": llm_server.base_url, "api_key": "sk-test", "model": "m", **FAST_FAILING_LLM}
    response = client.post("/configure", json={"llm": {"provider": "openai", "config": config}})
    assert response.status_code == 200, response.text
    return client


@pytest.fixture
def release() -> Iterator[threading.Event]:
    stalled = threading.Event()
    yield stalled
    stalled.set()


@pytest.mark.parametrize("kind", list(MISBEHAVIOURS))
def test_a_misbehaving_model_leaves_the_add_to_the_extractor_and_says_so(
    api: TestClient, llm_server: OpenAIServer, release: threading.Event, kind: str
) -> None:
    # Given a model that misbehaves on the extraction call
    script(llm_server, kind, release)

    # When a message is added
    response = api.post("/memories", json=LISBON)
    release.set()

    # Then the add succeeds with the extractor's statement, says why, and counts the calls that answered
    assert response.status_code == 200, response.text
    answer = response.json()
    assert [r["memory"] for r in answer["results"]] == ["I live in Lisbon."]
    assert answer["fallback"] == {"reason": MISBEHAVIOURS[kind], "extractor": "rules"}
    assert answer["llm_usage"]["calls"] == counted_calls(kind)
    stored = api.get("/memories", params={"user_id": USER}).json()["results"]
    assert [m["memory"] for m in stored] == ["I live in Lisbon."]


def test_an_add_whose_model_answered_sends_no_fallback(api: TestClient, llm_server: OpenAIServer) -> None:
    decision = {"memory": [{"id": "new", "text": "Lives in Lisbon", "event": "ADD"}]}
    llm_server.reply_json({"facts": ["Lives in Lisbon"]}, decision)
    response = api.post("/memories", json=LISBON)
    assert response.status_code == 200, response.text
    assert list(response.json()) == ["results", "llm_usage"]


def test_a_model_that_refuses_the_key_still_fails_the_add(api: TestClient, llm_server: OpenAIServer) -> None:
    llm_server.fail_next(401)
    response = api.post("/memories", json=LISBON)
    assert response.status_code == 502 and response.json()["code"] == "provider_auth_failed"
    assert api.get("/memories", params={"user_id": USER}).json()["results"] == []
