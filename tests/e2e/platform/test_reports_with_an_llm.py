"""Exports and summaries with an LLM (issue 17), on both backends.

Exports with `export_instructions`: with an LLM configured, the LLM fills the export's schema from the selected
memories following the instructions, and its answer is checked against the schema (sent back once when it does not
fit; a 502 after a second failure); without one, the instructions are a 400; without instructions, the export is
shaped from the memories by the schema's property names, with no LLM call. Summaries: written by the LLM when one
is configured (with the request's `prompt`); without one, a bullet list, and a prompt is a 400."""

from __future__ import annotations

from typing import Any

import httpx

from tests.e2e.platform.conftest import Server, Tenant, new_tenant
from tests.e2e.platform.test_categories import add
from tests.support.openai_server import OpenAIServer
from tests.support.waits import HTTP_TIMEOUT

SCHEMA = {
    "type": "object",
    "properties": {"diet": {"type": "string"}, "city": {"type": "string"}},
    "required": ["diet"],
    "additionalProperties": False,
}
INSTRUCTIONS = "Give the diet in one word, in lower case."


def export(server: Server, tenant: Tenant, **body: Any) -> httpx.Response:
    request = {"schema": SCHEMA, "filters": {"user_id": "alice"}, **body}
    return httpx.post(f"{server.url}/v1/exports/", json=request, headers=tenant.headers, timeout=HTTP_TIMEOUT)


def exported(server: Server, tenant: Tenant, export_id: str) -> Any:
    got = httpx.post(
        f"{server.url}/v1/exports/get/",
        json={"memory_export_id": export_id},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert got.status_code == 200, got.text
    return got.json()


def test_without_an_llm_instructions_are_a_400(server: Server) -> None:
    tenant = new_tenant(server, "export-no-llm")
    add(server, tenant, "I'm vegetarian")
    refused = export(server, tenant, export_instructions=INSTRUCTIONS)
    assert refused.status_code == 400 and "LLM" in refused.json()["detail"]
    assert export(server, tenant).status_code == 201  # without them: shaped by the property names


def test_the_llm_fills_the_schema_following_the_instructions(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "export-llm")
    add(server, tenant, "I'm vegetarian")
    add(server, tenant, "I live in Lisbon")
    llm.reply_json({"diet": "Vegetarian diet", "mood": "happy"}, {"diet": "vegetarian", "city": "Lisbon"})
    created = export(server, tenant, export_instructions=INSTRUCTIONS)
    assert created.status_code == 201, created.text
    assert exported(server, tenant, created.json()["id"]) == {"diet": "vegetarian", "city": "Lisbon"}
    first, retry = llm.chat_requests[-2:]
    prompt = first.body["messages"][0]["content"]
    assert INSTRUCTIONS in prompt and "I'm vegetarian" in prompt and "I live in Lisbon" in prompt
    assert "does not follow the schema" in retry.body["messages"][-1]["content"]  # the first answer sent back

    calls = len(llm.chat_requests)
    plain = export(server, tenant)
    assert plain.status_code == 201 and len(llm.chat_requests) == calls  # no instructions: no LLM call


def test_an_answer_rejected_twice_is_a_502_and_nothing_is_stored(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "export-bad")
    add(server, tenant, "I'm vegetarian")
    llm.reply("not json at all", '{"city": "Lisbon"}')
    failed = export(server, tenant, export_instructions=INSTRUCTIONS)
    assert failed.status_code == 502 and "rejected twice" in failed.json()["detail"]
    got = httpx.post(
        f"{server.url}/v1/exports/get/",
        json={"filters": {"user_id": "alice"}},
        headers=tenant.headers,
        timeout=HTTP_TIMEOUT,
    )
    assert got.status_code == 404


def summarize(server: Server, tenant: Tenant, **body: Any) -> httpx.Response:
    request = {"filters": {"user_id": "alice"}, **body}
    return httpx.post(f"{server.url}/v1/summary/", json=request, headers=tenant.headers, timeout=HTTP_TIMEOUT)


def test_summaries_are_written_by_the_llm_with_the_prompt(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server, "summary-llm")
    add(server, tenant, "I'm vegetarian")
    add(server, tenant, "I live in Lisbon")
    llm.reply("A vegetarian who lives in Lisbon.", "Vegetarian, Lisbon.")
    (written,) = summarize(server, tenant).json()
    assert written["summary"] == "A vegetarian who lives in Lisbon." and written["total_memories"] == 2
    asked = summarize(server, tenant, prompt="Three words at most.")
    assert asked.status_code == 200 and asked.json()[0]["summary"] == "Vegetarian, Lisbon."
    system, user = llm.chat_requests[-1].body["messages"]
    assert system["content"] == "Three words at most." and "I'm vegetarian" in user["content"]
    assert "I live in Lisbon" in user["content"]


def test_without_an_llm_a_summary_prompt_is_a_400_and_the_summary_a_list(server: Server) -> None:
    tenant = new_tenant(server, "summary-no-llm")
    add(server, tenant, "I'm vegetarian")
    refused = summarize(server, tenant, prompt="Three words at most.")
    assert refused.status_code == 400 and "LLM" in refused.json()["detail"]
    assert summarize(server, tenant).json()[0]["summary"] == "- I'm vegetarian"
