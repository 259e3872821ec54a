"""The LLM profile generator through the real `openai` LLM on a loopback server with scripted replies.

The prompt lists the memories numbered from 0, newest first; the LLM answers
`{"profile": {...}, "sources": {"<property>": [n, ...]}}`; an answer the schema rejects (or that is not JSON) goes
back once with the error, then the draft is `failed`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mnemo.adapters.llms.openai import OpenAILLM, OpenAILLMConfig
from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.errors import ProviderError
from mnemo.services.platform.profiles.generation import ProfileDraft, profile_generator
from mnemo.services.platform.profiles.llm_generator import LlmProfileGenerator
from tests.support.openai_server import OpenAIServer, RecordedRequest

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "Where the user lives"},
        "occupation": {"type": "string", "description": "The user's job or profession"},
        "hobbies": {"type": "array", "items": {"type": "string"}, "description": "What the user does for fun"},
        "age": {"type": "integer", "minimum": 0, "description": "The user's age in years"},
    },
    "additionalProperties": False,
}
INSTRUCTIONS = "Write every value in Portuguese."
NOW = datetime(2026, 11, 1, tzinfo=UTC)
TEXTS = ["Lives in Lisbon", "Works as a nurse", "Loves hiking", "Plays chess on weekends"]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture
def generator(server: OpenAIServer) -> LlmProfileGenerator:
    return LlmProfileGenerator(OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="test-model", max_retries=0)))


@pytest.fixture
def records() -> list[MemoryRecord]:
    """The user's memories, newest first."""
    return [MemoryRecord.create(t, Scope(user_id="alice"), at=NOW - timedelta(hours=i)) for i, t in enumerate(TEXTS)]


def prompt(request: RecordedRequest) -> str:
    (message,) = request.body["messages"]
    assert message["role"] == "user"
    content: str = message["content"]
    return content


def test_a_valid_profile_keeps_its_sources(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.reply_json(
        {
            "profile": {"location": "Lisboa", "occupation": "Enfermeira", "hobbies": ["caminhadas", "xadrez"]},
            "sources": {"location": [0], "occupation": [1], "hobbies": [2, 3]},
        }
    )

    draft = generator.generate(SCHEMA, INSTRUCTIONS, records)

    assert draft == ProfileDraft(
        "succeeded",
        profile={"location": "Lisboa", "occupation": "Enfermeira", "hobbies": ["caminhadas", "xadrez"]},
        sources={
            "location": [records[0].id],
            "occupation": [records[1].id],
            "hobbies": [records[2].id, records[3].id],
        },
    )
    (request,) = server.chat_requests
    assert request.body["response_format"] == {"type": "json_object"}


def test_the_prompt_carries_the_schema_the_instructions_and_the_numbered_memories(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.reply_json({"profile": {"location": "Lisboa"}, "sources": {"location": [0]}})

    generator.generate(SCHEMA, INSTRUCTIONS, records)

    text = prompt(server.chat_requests[0])
    assert json.dumps(SCHEMA, indent=2) in text
    assert "Instructions from the project:\nWrite every value in Portuguese." in text
    assert 'Memories (number and text, newest first):\n0: "Lives in Lisbon"\n1: "Works as a nurse"\n' in text
    assert '2: "Loves hiking"\n3: "Plays chess on weekends"\n' in text
    assert '{"profile": {...}, "sources": {"<property>": [<memory number>, ...]}}' in text
    assert records[0].id not in text  # the LLM sees short numbers, not ids


def test_without_instructions_the_prompt_has_no_instructions_section(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.reply_json({"profile": {"location": "Lisbon"}, "sources": {"location": [0]}})

    generator.generate(SCHEMA, None, records)

    assert "Instructions from the project" not in prompt(server.chat_requests[0])


def test_an_invalid_profile_is_sent_back_once_with_the_error(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    first = json.dumps({"profile": {"location": "Lisbon", "age": "thirty"}, "sources": {"location": [0], "age": [1]}})
    server.reply(first)
    server.reply_json({"profile": {"location": "Lisbon"}, "sources": {"location": [0]}})

    draft = generator.generate(SCHEMA, None, records)

    assert draft == ProfileDraft("succeeded", profile={"location": "Lisbon"}, sources={"location": [records[0].id]})
    retry = server.chat_requests[1].body["messages"]
    assert [m["role"] for m in retry] == ["user", "assistant", "user"]
    assert retry[0]["content"] == prompt(server.chat_requests[0])
    assert retry[1]["content"] == first
    assert retry[2]["content"].startswith(
        "Your reply could not be used: the profile does not follow the schema: at $.age, "
        "'thirty' is not of type 'integer'\n"
    )


def test_an_invalid_profile_twice_fails_with_the_validation_error(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.reply_json(
        {"profile": {"age": -3}, "sources": {"age": [0]}},
        {"profile": {"location": "Lisbon", "mood": "happy"}, "sources": {"location": [0], "mood": [1]}},
    )

    draft = generator.generate(SCHEMA, None, records)

    assert draft == ProfileDraft(
        "failed",
        reason="The LLM's profile was rejected twice: the profile does not follow the schema: at $, "
        "Additional properties are not allowed ('mood' was unexpected)",
    )
    assert len(server.chat_requests) == 2
    assert "at $.age, -3 is less than the minimum of 0" in server.chat_requests[1].body["messages"][2]["content"]


def test_a_reply_that_is_not_json_is_retried_then_fails(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.reply("Sure! Alice lives in Lisbon.", '{"profile": "Lisbon"}')

    draft = generator.generate(SCHEMA, None, records)

    assert draft == ProfileDraft(
        "failed", reason='The LLM\'s profile was rejected twice: the reply has no "profile" object.'
    )
    assert (
        server.chat_requests[1]
        .body["messages"][2]["content"]
        .startswith("Your reply could not be used: the reply is not a JSON object.")
    )


def test_a_reply_that_is_not_json_then_a_valid_one_succeeds(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.reply("not json at all")
    server.reply('```json\n{"profile": {"occupation": "Nurse"}, "sources": {"occupation": [1]}}\n```')

    draft = generator.generate(SCHEMA, None, records)

    assert draft == ProfileDraft("succeeded", profile={"occupation": "Nurse"}, sources={"occupation": [records[1].id]})


def test_unknown_source_numbers_are_dropped_and_a_value_citing_no_memory_is_left_out(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.reply_json(
        {
            "profile": {"location": "Lisbon", "hobbies": ["hiking"], "occupation": "Nurse", "age": 30},
            "sources": {"location": [0, 7, -1, "x", True, 0], "hobbies": ["2"], "occupation": [9], "unknown": [1]},
        }
    )

    draft = generator.generate(SCHEMA, None, records)

    assert draft == ProfileDraft(
        "succeeded",
        profile={"location": "Lisbon", "hobbies": ["hiking"]},
        sources={"location": [records[0].id], "hobbies": [records[2].id]},
        reason="Left out, citing no memory: occupation, age.",
    )


def test_an_empty_profile_is_insufficient_data(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.reply_json({"profile": {"location": None, "hobbies": [], "occupation": ""}, "sources": {}})

    draft = generator.generate(SCHEMA, None, records)

    assert draft == ProfileDraft(
        "insufficient_data",
        reason="The memories answer none of the schema's properties (location, occupation, hobbies, age).",
    )


def test_no_memories_is_insufficient_data_without_asking(server: OpenAIServer, generator: LlmProfileGenerator) -> None:
    draft = generator.generate(SCHEMA, None, [])

    assert draft == ProfileDraft("insufficient_data", reason="0 memories; at least 1 needed for a profile.")
    assert server.chat_requests == []


def test_fewer_memories_than_the_minimum_is_insufficient_data_without_asking(
    server: OpenAIServer, records: list[MemoryRecord]
) -> None:
    llm = OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="test-model"))

    draft = profile_generator(llm, embedder=None, min_memories=5).generate(SCHEMA, None, records)  # type: ignore[arg-type]

    assert draft == ProfileDraft("insufficient_data", reason="4 memories; at least 5 needed for a profile.")
    assert server.chat_requests == []


def test_a_schema_that_is_not_json_schema_fails_without_asking(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    draft = generator.generate({"type": "object", "properties": {"age": {"type": "whole"}}}, None, records)

    assert draft.status == "failed"
    assert draft.reason is not None
    assert draft.reason.startswith("The profile schema is not valid JSON Schema: ")
    assert server.chat_requests == []


def test_a_provider_failure_propagates(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    server.fail_next(401)

    with pytest.raises(ProviderError):
        generator.generate(SCHEMA, None, records)


def test_only_the_newest_memories_are_listed(server: OpenAIServer, records: list[MemoryRecord]) -> None:
    llm = OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="test-model"))
    server.reply_json({"profile": {"hobbies": ["chess"]}, "sources": {"hobbies": [3]}})  # 3: not listed

    draft = LlmProfileGenerator(llm, max_memories=2).generate(SCHEMA, None, records)

    assert draft.status == "insufficient_data"
    text = prompt(server.chat_requests[0])
    assert '1: "Works as a nurse"' in text
    assert "Loves hiking" not in text


def test_with_an_llm_the_factory_gives_the_llm_generator(server: OpenAIServer) -> None:
    llm = OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="test-model"))

    assert isinstance(profile_generator(llm, embedder=None), LlmProfileGenerator)  # type: ignore[arg-type]


def test_a_schema_whose_reference_cannot_be_resolved_fails(
    server: OpenAIServer, generator: LlmProfileGenerator, records: list[MemoryRecord]
) -> None:
    schema = {"type": "object", "properties": {"home": {"$ref": "https://example.com/address.json"}}}
    server.reply_json({"profile": {"home": "Lisbon"}, "sources": {"home": [0]}})

    draft = generator.generate(schema, None, records)

    assert draft.status == "failed"
    assert draft.reason is not None
    assert draft.reason.startswith("The profile schema cannot be used: ")
    assert "https://example.com/address.json" in draft.reason
    assert len(server.chat_requests) == 1  # no retry: the answer is not what is wrong
