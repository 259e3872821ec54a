"""How the `openai` LLM asks for a JSON answer (its config's `json_mode`), seen in the request bodies a loopback
OpenAI-compatible server receives; and that every answer is checked against the call's schema whatever the mode."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from pydantic import ValidationError

from mnemo.adapters.llms.openai import OpenAILLM, OpenAILLMConfig
from mnemo.adapters.openai_http import DEFAULT_BASE_URL
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage
from mnemo.services.memory.add.decide import decide
from mnemo.services.memory.add.extract import ExtractedFact, extract_facts
from tests.support.openai_server import OpenAIServer

CONVERSATION: list[tuple[int, ChatMessage]] = [(0, {"role": "user", "content": "I live in Lisbon."})]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as loopback:
        yield loopback


def llm(server: OpenAIServer, **config: Any) -> OpenAILLM:
    return OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="m", max_retries=0, **config))


def extracted(model: OpenAILLM) -> list[ExtractedFact]:
    return extract_facts(model, CONVERSATION, instructions=None, multilingual=False, today=date(2025, 5, 1))


def test_json_schema_mode_sends_the_strict_schema_of_the_call(server: OpenAIServer) -> None:
    # Given an endpoint configured to constrain its output to a JSON Schema
    server.reply_json({"facts": [{"text": "Lives in Lisbon", "sources": [0]}]})

    # When the facts are extracted
    facts = extracted(llm(server, json_mode="json_schema"))

    # Then the request carried the strict schema of an extraction, and the answer was read
    assert facts == [ExtractedFact("Lives in Lisbon", (0,))]
    asked = server.chat_requests[0].body["response_format"]
    assert asked["type"] == "json_schema"
    assert asked["json_schema"]["name"] == "facts" and asked["json_schema"]["strict"] is True
    fact = asked["json_schema"]["schema"]["properties"]["facts"]["items"]
    assert fact["required"] == ["text", "sources"] and fact["additionalProperties"] is False


def test_json_object_schema_mode_sends_the_schema_beside_json_object(server: OpenAIServer) -> None:
    server.reply_json({"memory": []})
    decide(llm(server, json_mode="json_object_schema"), {"0": "Lives in Paris"}, ["Lives in Porto"])
    asked = server.chat_requests[0].body["response_format"]
    assert asked["type"] == "json_object" and set(asked) == {"type", "schema"}
    decision = asked["schema"]["properties"]["memory"]["items"]
    assert decision["properties"]["event"]["enum"] == ["ADD", "UPDATE", "DELETE"]


def test_json_object_mode_and_none_mode(server: OpenAIServer) -> None:
    server.reply_json({"facts": []})
    server.reply_json({"facts": []})
    extracted(llm(server, json_mode="json_object"))
    extracted(llm(server, json_mode="none"))
    first, second = server.chat_requests
    assert first.body["response_format"] == {"type": "json_object"}
    assert "response_format" not in second.body


def test_the_default_mode_is_json_schema_at_openai_and_json_object_elsewhere(server: OpenAIServer) -> None:
    assert OpenAILLMConfig().json_format() == "json_schema"
    assert OpenAILLMConfig(base_url=DEFAULT_BASE_URL + "/").json_format() == "json_schema"
    assert OpenAILLMConfig(base_url=server.base_url).json_format() == "json_object"
    assert OpenAILLMConfig(base_url=server.base_url, json_mode="json_schema").json_format() == "json_schema"


def test_a_completion_that_asks_for_no_json_sends_no_response_format(server: OpenAIServer) -> None:
    server.reply("Plain text.")
    assert llm(server, json_mode="json_schema").complete([{"role": "user", "content": "Hi"}]).text == "Plain text."
    assert "response_format" not in server.chat_requests[0].body


@pytest.mark.parametrize("mode", ["json", "JSON_SCHEMA", "", 1])
def test_an_unknown_json_mode_is_refused(mode: Any) -> None:
    with pytest.raises(ValidationError, match="json_mode"):
        OpenAILLMConfig(json_mode=mode)


def test_an_answer_that_does_not_fit_the_schema_is_asked_for_once_more(server: OpenAIServer) -> None:
    # Given an endpoint that answers a fact of the wrong type, then a good answer
    server.reply_json({"facts": [5]})
    server.reply_json({"facts": ["Lives in Lisbon"]})

    # Then the second answer is the one read
    assert extracted(llm(server, json_mode="json_schema")) == [ExtractedFact("Lives in Lisbon")]
    assert len(server.chat_requests) == 2


def test_an_answer_that_does_not_fit_twice_is_a_bad_response_that_says_where(server: OpenAIServer) -> None:
    server.reply(json.dumps({"answer": []}), json.dumps({"memory": [], "facts": [{"text": 3}]}))
    with pytest.raises(ProviderError, match=r"does not fit the schema asked for, at facts\[0\]: ") as raised:
        extracted(llm(server, json_mode="json_object"))
    assert raised.value.code == "provider_bad_response"
