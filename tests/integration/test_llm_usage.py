"""Every LLM provider's completion carries the usage of its call, read from the provider's own reply: OpenAI's and
Azure OpenAI's `usage.prompt_tokens/completion_tokens`, Anthropic's `usage.input_tokens/output_tokens`, Gemini's
`usageMetadata`, Ollama's `prompt_eval_count/eval_count`, Bedrock Converse's `usage.inputTokens/outputTokens`.
A reply without counts still counts as one call, with zero tokens."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.stub import Stubber

from mnemo.adapters.llms.anthropic import AnthropicLLM, AnthropicLLMConfig
from mnemo.adapters.llms.azure_openai import AzureOpenAILLM, AzureOpenAILLMConfig
from mnemo.adapters.llms.bedrock import BedrockLLM, BedrockLLMConfig
from mnemo.adapters.llms.gemini import GeminiLLM, GeminiLLMConfig
from mnemo.adapters.llms.ollama import OllamaLLM, OllamaLLMConfig
from mnemo.adapters.llms.openai import OpenAILLM, OpenAILLMConfig
from mnemo.domain.llm_usage import NO_USAGE, LLMUsage
from mnemo.ports.llm import ChatMessage
from mnemo.services.llm_usage import UsageMeter
from tests.support.anthropic_server import AnthropicServer
from tests.support.gemini_server import GeminiServer
from tests.support.ollama_server import OllamaServer
from tests.support.openai_server import OpenAIServer

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You extract facts."},
    {"role": "user", "content": "I live in Lisbon and I like tea."},
]
PROMPT_WORDS = 3 + 8  # the system message's words and the user's


def characters(text: str) -> int:
    """A counter unlike the default one: the test knows which counts the server reported."""
    return len(text)


def test_openai_reads_prompt_and_completion_tokens() -> None:
    with OpenAIServer() as server:
        server.reply("Lives in Lisbon.")
        completion = OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="m")).complete(MESSAGES)
    assert completion.text == "Lives in Lisbon."
    assert completion.usage == LLMUsage(calls=1, input_tokens=PROMPT_WORDS, output_tokens=3)


def test_openai_uses_the_servers_count_not_its_own() -> None:
    with OpenAIServer(count_tokens=characters) as server:
        server.reply("ok")
        usage = OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="m")).complete(MESSAGES).usage
    assert usage == LLMUsage(1, sum(len(m["content"]) for m in MESSAGES), 2)


def test_a_reply_without_usage_is_one_call_of_zero_tokens() -> None:
    with OpenAIServer() as server:
        body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}
        server.respond_raw_next(200, json.dumps(body).encode())
        usage = OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="m")).complete(MESSAGES).usage
    assert usage == LLMUsage(1, 0, 0)


def test_azure_openai_reads_the_openai_usage() -> None:
    with OpenAIServer() as server:
        server.reply("Lives in Lisbon.")
        config = AzureOpenAILLMConfig(endpoint=f"http://127.0.0.1:{server.port}", deployment="d", api_key="k")
        usage = AzureOpenAILLM(config).complete(MESSAGES).usage
    assert usage == LLMUsage(1, PROMPT_WORDS, 3)


def test_anthropic_reads_input_and_output_tokens_with_the_system_prompt() -> None:
    with AnthropicServer() as server:
        server.reply("Lives in Lisbon.")
        llm = AnthropicLLM(AnthropicLLMConfig(base_url=server.base_url, model="claude-test", api_key="k"))
        usage = llm.complete(MESSAGES).usage
    assert usage == LLMUsage(1, PROMPT_WORDS, 3)


def test_anthropic_adds_the_prompt_cache_reads_and_writes_to_the_input() -> None:
    with AnthropicServer() as server:
        body = {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 7, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20,
                      "output_tokens": 4},
        }  # fmt: skip
        server.respond_raw_next(200, json.dumps(body).encode())
        llm = AnthropicLLM(AnthropicLLMConfig(base_url=server.base_url, model="claude-test", api_key="k"))
        usage = llm.complete(MESSAGES).usage
    assert usage == LLMUsage(1, 127, 4)


def test_gemini_reads_usage_metadata_with_the_system_instruction() -> None:
    with GeminiServer() as server:
        server.reply("Lives in Lisbon.")
        llm = GeminiLLM(GeminiLLMConfig(base_url=server.base_url, model="test-model", api_key="g"))
        usage = llm.complete(MESSAGES, json_mode=False).usage
    assert usage == LLMUsage(1, PROMPT_WORDS, 3)


def test_gemini_counts_a_thinking_models_thoughts_as_output() -> None:
    with GeminiServer() as server:
        body = {
            "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 1, "thoughtsTokenCount": 30},
        }
        server.respond_raw_next(200, json.dumps(body).encode())
        llm = GeminiLLM(GeminiLLMConfig(base_url=server.base_url, model="test-model", api_key="g"))
        usage = llm.complete(MESSAGES).usage
    assert usage == LLMUsage(1, 12, 31)


def test_ollama_reads_prompt_eval_and_eval_counts() -> None:
    with OllamaServer() as server:
        server.reply("Lives in Lisbon.")
        usage = OllamaLLM(OllamaLLMConfig(base_url=server.base_url)).complete(MESSAGES).usage
    assert usage == LLMUsage(1, PROMPT_WORDS, 3)


@pytest.fixture
def runtime() -> Any:
    import boto3

    return boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")


@pytest.fixture
def stubber(runtime: Any) -> Iterator[Stubber]:
    with Stubber(runtime) as stub:
        yield stub
        stub.assert_no_pending_responses()


def test_bedrock_reads_the_converse_usage(runtime: Any, stubber: Stubber) -> None:
    reply = {
        "output": {"message": {"role": "assistant", "content": [{"text": "Lives in Lisbon."}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 42, "outputTokens": 5, "totalTokens": 47},
        "metrics": {"latencyMs": 12},
    }
    stubber.add_response("converse", reply)
    usage = BedrockLLM(BedrockLLMConfig(), client=runtime).complete(MESSAGES).usage
    assert usage == LLMUsage(1, 42, 5)


def test_a_meter_sums_the_calls_made_through_it() -> None:
    with OpenAIServer() as server:
        server.reply("one two", "three")
        meter = UsageMeter()
        llm = meter.metered(OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="m")))
        assert meter.usage == NO_USAGE
        llm.complete(MESSAGES)
        llm.complete(MESSAGES)
    assert meter.usage == LLMUsage(2, 2 * PROMPT_WORDS, 3)
    assert llm.name == "openai/m"


def test_usage_json_round_trip_and_what_it_reads_of_a_bad_value() -> None:
    usage = LLMUsage(2, 300, 40)
    assert LLMUsage.from_json(usage.to_json()) == usage
    assert LLMUsage.from_json(None) == NO_USAGE
    assert LLMUsage.from_json({"calls": -1, "input_tokens": "9", "output_tokens": True}) == NO_USAGE
    assert LLMUsage.of_call(None, 3.5) == LLMUsage(1, 0, 0)


def test_a_data_dir_from_before_adds_kept_their_usage_reads_its_events_without_one(tmp_path: Any) -> None:
    import sqlite3

    from mnemo.adapters.sqlite.database import Database
    from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore

    path = tmp_path / "platform.db"
    with sqlite3.connect(path) as old:
        old.execute(
            "CREATE TABLE platform_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, "
            "project_id TEXT NOT NULL, event_type TEXT NOT NULL, status TEXT NOT NULL, payload TEXT NOT NULL, "
            "results TEXT NOT NULL, error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, started_at TEXT, "
            "completed_at TEXT)"
        )
        old.execute(
            "INSERT INTO platform_events (id, project_id, event_type, status, payload, results, created_at, "
            "updated_at) VALUES ('e1', 'p1', 'ADD', 'SUCCEEDED', '{}', '[]', ?, ?)",
            ("2025-01-01T00:00:00.000000+00:00", "2025-01-01T00:00:00.000000+00:00"),
        )
    database = Database(path)
    try:
        event = SqliteTenancyStore(database).get_event("p1", "e1")
    finally:
        database.close()
    assert event is not None and event.llm_usage is None and event.attempts == 0
