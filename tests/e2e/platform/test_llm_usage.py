"""Every add reports what its LLM calls used — calls, input and output tokens, as the provider counted them — in
its event (GET /v1/event/{id}/) and, when it is answered at once, in its answer; GET /v1/stats/ sums them per
project. An add that calls no LLM used zero calls. On both backends (the tenancy store keeps the usage with the
event, and the project's counters sum it)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.e2e.platform.conftest import Server, Tenant, new_tenant, wait_for_event
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT

ZERO = {"calls": 0, "input_tokens": 0, "output_tokens": 0}


def words(text: str) -> int:
    return len(text.split())  # the loopback server's token count


def spent(llm: OpenAIServer, replies: list[str], since: int = 0) -> dict[str, int]:
    """What the chat calls from the `since`-th on used, counted as the server counts."""
    requests = llm.chat_requests[since:]
    assert len(requests) == len(replies)
    prompt = sum(words(m["content"]) for r in requests for m in r.body["messages"])
    return {"calls": len(requests), "input_tokens": prompt, "output_tokens": sum(words(r) for r in replies)}


def call(server: Server, tenant: Tenant, method: str, path: str, **kwargs: Any) -> Any:
    response = httpx.request(method, f"{server.url}{path}", headers=tenant.headers, timeout=HTTP_TIMEOUT, **kwargs)
    assert response.status_code < 300, response.text
    return response.json()


def test_an_inferred_add_reports_its_llm_usage_in_its_event_and_the_projects_stats(
    server: Server, llm: OpenAIServer
) -> None:
    tenant, other = new_tenant(server), new_tenant(server)
    kept = {"messages": "I sail.", "user_id": "a", "infer": False}  # a memory to decide against: two calls
    assert call(server, tenant, "POST", "/v3/memories/add/", json=kept)["llm_usage"] == ZERO
    extraction = '{"facts": [{"text": "Lives in Oslo", "sources": [0]}]}'
    decision = '{"memory": [{"id": "new", "text": "Lives in Oslo", "event": "ADD"}]}'
    llm.reply(extraction, decision)
    queued = call(server, tenant, "POST", "/v3/memories/add/", json={"messages": "I live in Oslo.", "user_id": "a"})
    assert "llm_usage" not in queued  # not run yet: the event will tell
    event = wait_for_event(server, tenant, queued["event_id"])
    assert event["status"] == "SUCCEEDED"
    first = spent(llm, [extraction, decision])
    assert first["calls"] == 2 and first["input_tokens"] > 100
    assert event["llm_usage"] == first

    before = len(llm.chat_requests)
    llm.reply('{"facts": []}')
    again = call(server, tenant, "POST", "/v3/memories/add/", json={"messages": "hello there", "user_id": "a"})
    usage = wait_for_event(server, tenant, again["event_id"])["llm_usage"]
    second = spent(llm, ['{"facts": []}'], since=before)
    assert usage == second

    stats = call(server, tenant, "GET", "/v1/stats/")
    assert stats["llm_usage"] == {k: first[k] + second[k] for k in first}
    assert call(server, other, "GET", "/v1/stats/")["llm_usage"] == ZERO  # per project


def test_an_add_that_calls_no_llm_reports_zero_calls(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server)
    stored = call(
        server, tenant, "POST", "/v3/memories/add/", json={"messages": "I sail.", "user_id": "a", "infer": False}
    )
    assert stored["status"] == "SUCCEEDED" and stored["llm_usage"] == ZERO
    assert call(server, tenant, "GET", f"/v1/event/{stored['event_id']}/")["llm_usage"] == ZERO
    assert call(server, tenant, "GET", "/v1/stats/")["llm_usage"] == ZERO
    assert llm.chat_requests == []


def test_an_add_whose_llm_answers_could_not_be_read_still_reports_the_calls_it_made(
    server: Server, llm: OpenAIServer
) -> None:
    tenant = new_tenant(server)
    llm.reply("this is not JSON", "nor is this")
    queued = call(server, tenant, "POST", "/v3/memories/add/", json={"messages": "I live in Rome.", "user_id": "a"})
    event = wait_for_event(server, tenant, queued["event_id"])
    assert event["status"] == "SUCCEEDED"  # the rule-based extractor read the message instead
    used = spent(llm, ["this is not JSON", "nor is this"])
    assert event["llm_usage"] == used and used["calls"] == 2
    assert call(server, tenant, "GET", "/v1/stats/")["llm_usage"] == used


def test_events_that_are_no_adds_have_no_usage(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server)
    call(server, tenant, "POST", "/v3/memories/add/", json={"messages": "I row.", "user_id": "a", "infer": False})
    deletion = call(server, tenant, "DELETE", "/v1/memories/", params={"user_id": "a"})
    assert call(server, tenant, "GET", f"/v1/event/{deletion['event_id']}/")["llm_usage"] is None
