"""A project's custom_instructions and multilingual reach the LLM extraction step of its adds (a loopback server
speaking the OpenAI protocol plays the LLM), and its custom_categories the filing of their memories; another
project's adds never see them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mem0 import MemoryClient

from tests.e2e.platform.conftest import Server, new_tenant, wait_for_event
from tests.support.openai_server import HTTPFailure, OpenAIServer


@pytest.fixture(scope="module")
def llm(server: Server) -> Iterator[OpenAIServer]:
    with OpenAIServer(embedding_dims=64) as fake:
        config = {"provider": "openai", "config": {"base_url": fake.base_url, "api_key": "sk-test", "model": "m"}}
        server.container.configuration.update({"llm": config})
        yield fake


def extraction_prompt(llm: OpenAIServer) -> str:
    (system, _user) = llm.chat_requests[-1].body["messages"]
    assert system["role"] == "system"
    prompt: str = system["content"]
    return prompt


def test_project_settings_reach_the_extraction_prompt(server: Server, llm: OpenAIServer) -> None:
    configured, plain = new_tenant(server), new_tenant(server)
    client = MemoryClient(api_key=configured.key, host=server.url)
    client.project.update(
        custom_instructions="Only remember what the user eats.",
        custom_categories=[{"cuisine": "dishes and restaurants"}],
        multilingual=True,
    )
    llm.reply_json({"facts": []})
    queued = client.add("Comí paella en Valencia.", user_id="alice")
    assert wait_for_event(server, configured, queued["event_id"])["status"] == "SUCCEEDED"
    prompt = extraction_prompt(llm)
    assert "Only remember what the user eats." in prompt
    assert "Write each fact in the language the speaker used." in prompt
    assert "cuisine" not in prompt  # the categories file the memories (test_categories.py): the LLM is not told

    llm.reply_json({"facts": []})
    own = client.add("Comí tapas.", user_id="alice", custom_instructions="Only remember drinks.")
    assert wait_for_event(server, configured, own["event_id"])["status"] == "SUCCEEDED"
    per_call = extraction_prompt(llm)
    assert "Only remember drinks." in per_call and "Only remember what the user eats." not in per_call

    other = MemoryClient(api_key=plain.key, host=server.url)
    llm.reply_json({"facts": []})
    queued = other.add("I had soup.", user_id="alice")
    assert wait_for_event(server, plain, queued["event_id"])["status"] == "SUCCEEDED"
    untouched = extraction_prompt(llm)
    assert "Only remember what the user eats." not in untouched
    assert "Write each fact in English." in untouched and "Only remember drinks." not in untouched


def test_an_llm_that_refuses_the_key_ends_the_event_failed(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server)
    client = MemoryClient(api_key=tenant.key, host=server.url)
    llm.reply(HTTPFailure(401))
    queued = client.add("I live in Oslo.", user_id="alice")
    event = wait_for_event(server, tenant, queued["event_id"])
    assert event["status"] == "FAILED" and event["error"]
    assert client.get_all(filters={"user_id": "alice"})["count"] == 0


def test_llm_answers_that_cannot_be_read_leave_the_add_to_the_extractor(server: Server, llm: OpenAIServer) -> None:
    tenant = new_tenant(server)
    client = MemoryClient(api_key=tenant.key, host=server.url)
    llm.reply("this is not JSON", "nor is this")
    queued = client.add("I live in Oslo.", user_id="alice")
    event = wait_for_event(server, tenant, queued["event_id"])
    assert event["status"] == "SUCCEEDED"
    assert [m["memory"] for m in client.get_all(filters={"user_id": "alice"})["results"]] == ["I live in Oslo."]


def test_the_deployments_instructions_reach_every_project_without_instructions_of_its_own(
    server: Server, llm: OpenAIServer
) -> None:
    """The instructions configured for the deployment (POST /configure) stand in for a project's own, whether or not
    the project files memories under custom categories (the categories reach the filing, not the extraction); a
    project's own instructions replace them."""
    server.container.configuration.update({"custom_instructions": "Remember only what the operator wants."})
    try:
        filed, plain, own = new_tenant(server), new_tenant(server), new_tenant(server)
        MemoryClient(api_key=filed.key, host=server.url).project.update(
            custom_categories=[{"cuisine": "dishes and restaurants"}]
        )
        MemoryClient(api_key=own.key, host=server.url).project.update(custom_instructions="Keep only food.")
        for tenant, operators in ((filed, True), (plain, True), (own, False)):
            llm.reply_json({"facts": []})
            queued = MemoryClient(api_key=tenant.key, host=server.url).add("I had paella.", user_id="alice")
            assert wait_for_event(server, tenant, queued["event_id"])["status"] == "SUCCEEDED"
            prompt = extraction_prompt(llm)
            assert ("Remember only what the operator wants." in prompt) is operators
            assert ("Keep only food." in prompt) is not operators
            assert "cuisine" not in prompt
    finally:
        server.container.configuration.update({"custom_instructions": None})
