"""The `anthropic` LLM against a loopback server speaking Anthropic's Messages API (real httpx calls)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mnemo.adapters.llms.anthropic import JSON_INSTRUCTION, AnthropicLLM, AnthropicLLMConfig
from mnemo.adapters.openai_http import Pace
from mnemo.adapters.registry import ProviderRegistry
from mnemo.errors import ProviderError, ValidationError
from mnemo.ports.llm import ChatMessage
from tests.support.anthropic_server import AnthropicServer

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Say hi."},
]


class FakeTime:
    """A clock that real time moves plus every sleep, which is recorded instead of waited; full jitter."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self._slept = 0.0

    def clock(self) -> float:
        return time.monotonic() + self._slept

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self._slept += seconds

    def pace(self) -> Pace:
        return Pace(clock=self.clock, wall_clock=lambda: 1_700_000_000.0, sleep=self.sleep, jitter=lambda c: c)


@pytest.fixture
def server() -> Iterator[AnthropicServer]:
    with AnthropicServer() as running:
        yield running


def make_llm(server: AnthropicServer, pace: Pace | None = None, **config: Any) -> AnthropicLLM:
    merged = {"base_url": server.base_url, "model": "claude-test", "api_key": "sk-ant-test", **config}
    return AnthropicLLM(AnthropicLLMConfig(**merged), pace=pace)


# ---- the request and the reply --------------------------------------------------------------------------


def test_sends_a_messages_request_and_returns_the_text(server: AnthropicServer) -> None:
    server.reply("hi")
    llm = make_llm(server, temperature=0.3, max_tokens=50)

    assert llm.complete(MESSAGES).text == "hi"

    (request,) = server.requests
    assert request.method == "POST"
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"] == "application/json"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "claude-test",
        "max_tokens": 50,
        "system": "You are terse.",
        "messages": [{"role": "user", "content": "Say hi."}],
        "temperature": 0.3,
    }
    assert llm.name == "anthropic/claude-test"


def test_without_a_system_message_sends_no_system_field(server: AnthropicServer) -> None:
    server.reply("ok")
    make_llm(server).complete([{"role": "user", "content": "Hello"}])
    assert "system" not in server.requests[0].body


def test_systems_are_joined_and_turns_keep_their_order(server: AnthropicServer) -> None:
    server.reply("ok")
    conversation: list[ChatMessage] = [
        {"role": "system", "content": "Rule one."},
        {"role": "user", "content": "Question?"},
        {"role": "assistant", "content": "Answer."},
        {"role": "system", "content": "Rule two."},
        {"role": "user", "content": "More."},
        {"role": "user", "content": "Still more."},
    ]
    make_llm(server).complete(conversation)

    body = server.requests[0].body
    assert body["system"] == "Rule one.\n\nRule two."
    assert body["messages"] == [
        {"role": "user", "content": "Question?"},
        {"role": "assistant", "content": "Answer."},
        {"role": "user", "content": "More.\n\nStill more."},
    ]


def test_sends_no_api_key_header_without_a_key(server: AnthropicServer) -> None:
    server.reply("ok")
    make_llm(server, api_key=None).complete(MESSAGES)
    assert "x-api-key" not in server.requests[0].headers
    assert server.requests[0].headers["anthropic-version"] == "2023-06-01"


def test_honours_a_base_url_with_a_prefix_and_a_trailing_slash(server: AnthropicServer) -> None:
    server.reply("ok")
    llm = make_llm(server, base_url=f"http://127.0.0.1:{server.port}/proxy/anthropic/")
    assert llm.complete(MESSAGES).text == "ok"
    assert server.requests[0].path == "/proxy/anthropic/v1/messages"


def test_joins_the_text_blocks_of_a_reply(server: AnthropicServer) -> None:
    reply = {
        "type": "message",
        "content": [{"type": "text", "text": "Hello, "}, {"type": "text", "text": "world."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 2},
    }
    server.respond_raw_next(200, json.dumps(reply).encode())
    assert make_llm(server).complete(MESSAGES).text == "Hello, world."


# ---- json_mode ---------------------------------------------------------------------------------------------


def test_json_mode_appends_the_instruction_to_the_system_prompt(server: AnthropicServer) -> None:
    server.reply('{"facts": ["Likes tea"]}')

    reply = make_llm(server).complete(MESSAGES, json_mode=True).text

    assert json.loads(reply) == {"facts": ["Likes tea"]}
    body = server.requests[0].body
    assert body["system"] == "You are terse.\n\n" + JSON_INSTRUCTION
    assert body["messages"] == [{"role": "user", "content": "Say hi."}]
    assert "response_format" not in body


def test_json_mode_without_a_system_message_sends_the_instruction_alone(server: AnthropicServer) -> None:
    server.reply("{}")
    make_llm(server).complete([{"role": "user", "content": "x"}], json_mode=True)
    assert server.requests[0].body["system"] == JSON_INSTRUCTION


def test_json_mode_unwraps_a_fenced_reply(server: AnthropicServer) -> None:
    server.reply('```json\n{"facts": []}\n```', '```\n{"a": 1}```')
    llm = make_llm(server)
    assert json.loads(llm.complete(MESSAGES, json_mode=True).text) == {"facts": []}
    assert json.loads(llm.complete(MESSAGES, json_mode=True).text) == {"a": 1}


def test_without_json_mode_a_fenced_reply_is_left_alone(server: AnthropicServer) -> None:
    server.reply("```\ncode\n```")
    assert make_llm(server).complete(MESSAGES).text == "```\ncode\n```"
    assert "system" in server.requests[0].body
    assert JSON_INSTRUCTION not in server.requests[0].body["system"]


# ---- failures -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "provider_bad_request"),
        (401, "provider_auth_failed"),
        (403, "provider_auth_failed"),
        (404, "provider_bad_request"),
        (413, "provider_bad_request"),
        (429, "provider_rate_limited"),
        (500, "provider_unavailable"),
        (529, "provider_unavailable"),
    ],
)
def test_http_errors_map_to_provider_error_codes(server: AnthropicServer, status: int, code: str) -> None:
    server.fail_next(status)
    server.reply("after the error")
    llm = make_llm(server, max_retries=0)  # one attempt: retries are tested below

    with pytest.raises(ProviderError) as caught:
        llm.complete(MESSAGES)
    assert caught.value.code == code
    assert f"({status})" in caught.value.message
    assert "sk-ant-test" not in caught.value.message
    assert llm.complete(MESSAGES).text == "after the error"  # the failure was for that call only


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_not_retried(server: AnthropicServer, status: int) -> None:
    server.fail_next(status)
    fake = FakeTime()
    with pytest.raises(ProviderError):
        make_llm(server, pace=fake.pace()).complete(MESSAGES)
    assert len(server.requests) == 1
    assert fake.sleeps == []


def test_a_429_is_retried_after_retry_after_then_succeeds(server: AnthropicServer) -> None:
    server.fail_next(429, headers={"retry-after": "3"})
    server.reply("finally")
    fake = FakeTime()

    assert make_llm(server, pace=fake.pace(), total_timeout=30).complete(MESSAGES).text == "finally"

    assert len(server.requests) == 2
    assert fake.sleeps == [3.0]
    assert server.requests[0].body == server.requests[1].body


def test_a_529_overloaded_is_retried_with_backoff(server: AnthropicServer) -> None:
    server.fail_next(529, times=2)
    server.reply("recovered")
    fake = FakeTime()

    assert make_llm(server, pace=fake.pace()).complete(MESSAGES).text == "recovered"

    assert len(server.requests) == 3
    assert fake.sleeps == [0.5, 1.0]  # the backoff ceilings (the fake jitter takes all of each)


def test_retries_stop_at_max_retries_and_say_so(server: AnthropicServer) -> None:
    server.fail_next(529, times=3)
    fake = FakeTime()

    with pytest.raises(ProviderError) as caught:
        make_llm(server, pace=fake.pace(), max_retries=2).complete(MESSAGES)

    assert caught.value.code == "provider_unavailable"
    assert "after 2 retries" in caught.value.message
    assert len(server.requests) == 3


def test_a_retry_after_past_the_deadline_is_not_waited(server: AnthropicServer) -> None:
    server.fail_next(429, headers={"retry-after": "100"})
    fake = FakeTime()

    with pytest.raises(ProviderError) as caught:
        make_llm(server, pace=fake.pace(), timeout=5, total_timeout=10).complete(MESSAGES)

    assert caught.value.code == "provider_rate_limited"
    assert fake.sleeps == []
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"<html>bad gateway</html>", "text/html"),
        (b"not json", "application/json"),
        (b"[1, 2, 3]", "application/json"),
        (b'{"type": "message"}', "application/json"),
        (b'{"content": []}', "application/json"),
        (b'{"content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}', "application/json"),
        (b'{"content": [{"type": "text", "text": null}]}', "application/json"),
        (b'{"content": "hi"}', "application/json"),
    ],
)
def test_a_malformed_body_is_provider_bad_response(server: AnthropicServer, body: bytes, content_type: str) -> None:
    server.respond_raw_next(200, body, content_type)
    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)
    assert caught.value.code == "provider_bad_response"
    assert len(server.requests) == 1  # not retried


# ---- the registry -------------------------------------------------------------------------------------------


def test_the_registry_builds_it_and_lists_it(server: AnthropicServer) -> None:
    registry = ProviderRegistry()
    llm = registry.build_llm(
        "anthropic", {"base_url": server.base_url, "api_key": "sk-ant-x", "model": "claude-x", "max_retries": 0}
    )
    server.reply("built")

    assert isinstance(llm, AnthropicLLM)
    assert llm.name == "anthropic/claude-x"
    assert llm.complete(MESSAGES).text == "built"
    assert server.requests[0].headers["x-api-key"] == "sk-ant-x"
    assert "anthropic" in registry.bundled()["llm"]


def test_the_registry_defaults() -> None:
    llm = ProviderRegistry().build_llm("anthropic", None)
    assert isinstance(llm, AnthropicLLM)
    assert llm.config.base_url == "https://api.anthropic.com"
    assert llm.config.model == "claude-3-5-haiku-latest"
    assert llm.config.api_key is None


@pytest.mark.parametrize(
    "config",
    [
        {"unknown_key": 1},
        {"api_key": "sk-ant\nInjected: 1"},
        {"api_key": "ключ"},
        {"api_key": "k" * 1_025},
        {"base_url": "ftp://example.com"},
        {"model": ""},
        {"temperature": 1.5},
        {"max_tokens": 0},
        {"timeout": 0},
        {"max_retries": 11},
        {"max_retries": "2"},
        {"total_timeout": -1},
    ],
)
def test_a_bad_config_is_a_validation_error(config: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as caught:
        ProviderRegistry().build_llm("anthropic", config)
    assert "anthropic" in caught.value.message
