"""A model that misbehaves never fails a platform add (v1 and v3, run by the worker): garbage, JSON cut off at the
output limit, a bare empty list or no answer in time leave the add to the rule-based extractor; the event SUCCEEDS
with the extractor's memories, its payload says why (`fallback`), and its `llm_usage` counts the calls spent. On
both backends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.platform.conftest import Server, new_tenant, wait_for_event
from tests.support.llm_misbehaviour import FAST_FAILING_LLM, MISBEHAVIOURS, counted_calls, script
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT


@pytest.fixture
def llm(server: Server) -> Iterator[OpenAIServer]:
    with OpenAIServer(embedding_dims=64) as fake:
        config = {"base_url": fake.base_url, "api_key": "sk-test", "model": "m", **FAST_FAILING_LLM}
        server.container.configuration.update({"llm": {"provider": "openai", "config": config}})
        try:
            yield fake
        finally:
            server.container.configuration.update({"llm": None})


@pytest.fixture
def release() -> Iterator[threading.Event]:
    stalled = threading.Event()
    yield stalled
    stalled.set()


def queued_event_id(answer: Any) -> str:
    """The event id of a queued add: v3 answers an object, v1 a one-item array."""
    queued = answer[0] if isinstance(answer, list) else answer
    assert queued["status"] == "PENDING"
    event_id: str = queued["event_id"]
    return event_id


@pytest.mark.parametrize("path", ["/v1/memories/", "/v3/memories/add/"])
@pytest.mark.parametrize("kind", list(MISBEHAVIOURS))
def test_a_misbehaving_model_leaves_the_add_to_the_extractor_and_the_event_says_so(
    server: Server, llm: OpenAIServer, release: threading.Event, kind: str, path: str
) -> None:
    tenant = new_tenant(server)
    script(llm, kind, release)

    body = {"messages": [{"role": "user", "content": "I live in Rome."}], "user_id": "a"}
    answer = httpx.post(f"{server.url}{path}", json=body, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    assert answer.status_code < 300, answer.text
    event = wait_for_event(server, tenant, queued_event_id(answer.json()))
    release.set()

    assert event["status"] == "SUCCEEDED", event
    assert event["payload"]["fallback"] == {"reason": MISBEHAVIOURS[kind], "extractor": "rules"}
    assert event["llm_usage"]["calls"] == counted_calls(kind)
    assert [r["data"]["memory"] for r in event["results"]] == ["I live in Rome."]
