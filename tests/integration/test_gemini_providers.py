"""The `gemini` LLM and embedder against a loopback server speaking Gemini's REST API (real httpx calls)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.embedders.gemini import GeminiEmbedder, GeminiEmbedderConfig
from mnemo.adapters.llms.gemini import GeminiLLM, GeminiLLMConfig
from mnemo.adapters.openai_http import Pace
from mnemo.adapters.registry import ProviderRegistry
from mnemo.errors import ProviderError, ValidationError
from mnemo.ports.llm import ChatMessage
from tests.support.gemini_server import Blocked, GeminiServer, error_body
from tests.support.openai_server import HTTPFailure, embedding_for

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Say hi."},
]


@pytest.fixture
def server() -> Iterator[GeminiServer]:
    with GeminiServer(embedding_dims=32) as running:
        yield running


class FakeTime:
    """A clock that real time moves plus every sleep, which is recorded instead of waited; a full jitter."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self._slept = 0.0

    def clock(self) -> float:
        return time.monotonic() + self._slept

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self._slept += seconds

    @property
    def pace(self) -> Pace:
        return Pace(clock=self.clock, wall_clock=lambda: 1_700_000_000.0, sleep=self.sleep, jitter=lambda c: c)


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


def make_llm(server: GeminiServer, fake_time: FakeTime | None = None, **config: Any) -> GeminiLLM:
    typed = GeminiLLMConfig(**{"base_url": server.base_url, "model": "test-model", "api_key": "g-key", **config})
    return GeminiLLM(typed, pace=fake_time.pace if fake_time else None)


def make_embedder(server: GeminiServer, fake_time: FakeTime | None = None, **config: Any) -> GeminiEmbedder:
    typed = GeminiEmbedderConfig(**{"base_url": server.base_url, "model": "test-embed", "api_key": "g-key", **config})
    return GeminiEmbedder(typed, pace=fake_time.pace if fake_time else None)


# ---- LLM ------------------------------------------------------------------------------------------------


def test_llm_sends_generate_content_and_returns_the_text(server: GeminiServer) -> None:
    server.reply("hi")
    llm = make_llm(server, temperature=0.3, max_tokens=50)

    assert llm.complete(MESSAGES).text == "hi"

    (request,) = server.requests
    assert request.method == "POST"
    assert request.path == "/v1beta/models/test-model:generateContent"
    assert request.headers["x-goog-api-key"] == "g-key"
    assert "authorization" not in request.headers
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "contents": [{"role": "user", "parts": [{"text": "Say hi."}]}],
        "systemInstruction": {"parts": [{"text": "You are terse."}]},
        "generationConfig": {"temperature": 0.3, "maxOutputTokens": 50},
    }
    assert llm.name == "gemini/test-model"


def test_llm_maps_roles_and_merges_consecutive_turns(server: GeminiServer) -> None:
    server.reply("ok")
    messages: list[ChatMessage] = [
        {"role": "system", "content": "Rule one."},
        {"role": "user", "content": "Hello."},
        {"role": "assistant", "content": "Hi there."},
        {"role": "user", "content": "I live in Lisbon."},
        {"role": "user", "content": "And I am a nurse."},
        {"role": "system", "content": "Rule two."},
    ]

    make_llm(server).complete(messages)

    body = server.generate_requests[0].body
    assert body["systemInstruction"] == {"parts": [{"text": "Rule one."}, {"text": "Rule two."}]}
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Hello."}]},
        {"role": "model", "parts": [{"text": "Hi there."}]},
        {"role": "user", "parts": [{"text": "I live in Lisbon."}, {"text": "And I am a nurse."}]},
    ]


def test_llm_without_system_messages_sends_no_system_instruction(server: GeminiServer) -> None:
    server.reply("plain")
    make_llm(server).complete([{"role": "user", "content": "Hi."}])
    body = server.requests[0].body
    assert "systemInstruction" not in body
    assert "responseMimeType" not in body["generationConfig"]


def test_llm_json_mode_asks_for_application_json(server: GeminiServer) -> None:
    server.reply('{"facts": ["Likes tea"]}')

    reply = make_llm(server).complete(MESSAGES, json_mode=True).text

    assert json.loads(reply) == {"facts": ["Likes tea"]}
    assert server.requests[0].body["generationConfig"]["responseMimeType"] == "application/json"


def test_llm_sends_no_key_header_without_a_key(server: GeminiServer) -> None:
    server.reply("hi")
    make_llm(server, api_key=None).complete(MESSAGES)
    assert "x-goog-api-key" not in server.requests[0].headers


def test_llm_honours_a_base_url_with_a_trailing_slash_or_a_prefix(server: GeminiServer) -> None:
    server.reply("hi")
    make_llm(server, base_url=server.base_url + "/").complete(MESSAGES)
    assert server.requests[-1].path == "/v1beta/models/test-model:generateContent"

    with pytest.raises(ProviderError) as caught:  # the loopback has no such route: a 404
        make_llm(server, base_url=server.base_url + "/proxy").complete(MESSAGES)
    assert caught.value.code == "provider_bad_request"
    assert server.requests[-1].path == "/proxy/v1beta/models/test-model:generateContent"


def test_llm_joins_text_parts_and_skips_thoughts(server: GeminiServer) -> None:
    parts = [{"text": "thinking…", "thought": True}, {"text": "Hello, "}, {"text": "world."}]
    payload = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}
    server.respond_raw_next(200, json.dumps(payload).encode())
    assert make_llm(server).complete(MESSAGES).text == "Hello, world."


@pytest.mark.parametrize("reason", ["SAFETY", "PROHIBITED_CONTENT"])
def test_llm_answer_blocked_by_safety_is_a_bad_request(server: GeminiServer, reason: str) -> None:
    server.reply(Blocked(reason))
    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)
    assert caught.value.code == "provider_bad_request"
    assert reason in caught.value.message
    assert "blocked" in caught.value.message
    assert len(server.requests) == 1  # not retried


def test_llm_prompt_blocked_by_safety_is_a_bad_request(server: GeminiServer) -> None:
    server.reply(Blocked("SAFETY", prompt=True))
    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)
    assert caught.value.code == "provider_bad_request"
    assert "blocked the prompt (SAFETY)" in caught.value.message


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "provider_bad_request"),
        (401, "provider_auth_failed"),
        (403, "provider_auth_failed"),
        (404, "provider_bad_request"),
        (429, "provider_rate_limited"),
        (500, "provider_unavailable"),
        (503, "provider_unavailable"),
    ],
)
def test_llm_http_errors_map_to_provider_error_codes(server: GeminiServer, status: int, code: str) -> None:
    server.fail_next(status, message=f"Gemini says {status}.")
    server.reply("after the error")
    llm = make_llm(server, max_retries=0)  # one attempt: retries are tested below

    with pytest.raises(ProviderError) as caught:
        llm.complete(MESSAGES)
    assert caught.value.code == code
    assert f"({status}): " in caught.value.message
    assert f"Gemini says {status}" in caught.value.message  # Gemini's own words, e.g. RESOURCE_EXHAUSTED
    assert "g-key" not in caught.value.message

    assert llm.complete(MESSAGES).text == "after the error"  # the failure was for that call only


def test_llm_invalid_api_key_is_auth_failed(server: GeminiServer) -> None:
    # What Gemini answers a wrong key: a 400 INVALID_ARGUMENT whose details name API_KEY_INVALID.
    body = {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}],
        }
    }
    server.respond_raw_next(400, json.dumps(body).encode())
    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)
    assert caught.value.code == "provider_auth_failed"
    assert "API key not valid" in caught.value.message


def test_llm_error_without_a_gemini_body_still_maps(server: GeminiServer) -> None:
    server.respond_raw_next(403, b"<html>Forbidden</html>", "text/html")
    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)
    assert caught.value.code == "provider_auth_failed"
    assert caught.value.message == "Provider rejected the request's authentication (403). Check the provider API key."


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"<html>bad gateway</html>", "text/html"),
        (b"not json at all", "application/json"),
        (b"[1, 2, 3]", "application/json"),
        (b"{}", "application/json"),
        (b'{"candidates": []}', "application/json"),
        (b'{"candidates": [{"finishReason": "STOP"}]}', "application/json"),
        (b'{"candidates": [{"content": {"parts": []}, "finishReason": "MAX_TOKENS"}]}', "application/json"),
        (b'{"candidates": [{"content": {"parts": [{"text": 42}]}}]}', "application/json"),
        (b'{"candidates": ["x"]}', "application/json"),
    ],
)
def test_llm_malformed_body_is_provider_bad_response(server: GeminiServer, body: bytes, content_type: str) -> None:
    server.respond_raw_next(200, body, content_type)
    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)
    assert caught.value.code == "provider_bad_response"
    assert len(server.requests) == 1  # not retried


# ---- retries --------------------------------------------------------------------------------------------


def test_a_rate_limit_then_success_is_one_successful_call(server: GeminiServer, fake_time: FakeTime) -> None:
    server.fail_next(429)
    server.reply("hi")

    assert make_llm(server, fake_time).complete(MESSAGES).text == "hi"

    assert len(server.generate_requests) == 2
    assert server.generate_requests[0].body == server.generate_requests[1].body
    assert fake_time.sleeps == [0.5]  # the first backoff


def test_retry_after_is_honoured(server: GeminiServer, fake_time: FakeTime) -> None:
    server.reply(HTTPFailure(503, {"Retry-After": "2"}), "hi")
    assert make_llm(server, fake_time, timeout=10).complete(MESSAGES).text == "hi"
    assert fake_time.sleeps == [2.0]


def test_the_final_error_says_how_often_it_was_retried(server: GeminiServer, fake_time: FakeTime) -> None:
    server.fail_next(429, times=3)
    with pytest.raises(ProviderError) as caught:
        make_llm(server, fake_time, max_retries=2).complete(MESSAGES)
    assert caught.value.code == "provider_rate_limited"
    assert "RESOURCE_EXHAUSTED" in caught.value.message
    assert "after 2 retries over " in caught.value.message
    assert len(server.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_other_errors_are_not_retried(server: GeminiServer, fake_time: FakeTime, status: int) -> None:
    server.fail_next(status)
    with pytest.raises(ProviderError):
        make_llm(server, fake_time).complete(MESSAGES)
    assert len(server.requests) == 1
    assert fake_time.sleeps == []


# ---- embedder -------------------------------------------------------------------------------------------


def test_embedder_sends_batch_embed_contents_and_normalises_rows(server: GeminiServer) -> None:
    texts = ["Lives in Lisbon", "Is allergic to peanuts", "Works as a nurse"]
    embedder = make_embedder(server, embedding_dims=32)

    vectors = embedder.embed(texts)

    (request,) = server.requests
    assert request.path == "/v1beta/models/test-embed:batchEmbedContents"
    assert request.headers["x-goog-api-key"] == "g-key"
    assert request.body == {
        "requests": [
            {"model": "models/test-embed", "content": {"parts": [{"text": t}]}, "outputDimensionality": 32}
            for t in texts
        ]
    }
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, 32)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    for text, row in zip(texts, vectors, strict=True):
        expected = np.asarray(embedding_for(text, 32))
        assert np.allclose(row, expected / np.linalg.norm(expected), atol=1e-5)
    assert embedder.dimension == 32
    assert embedder.name == "gemini/test-embed"


def test_embedder_batches_by_at_most_100(server: GeminiServer) -> None:
    texts = [f"text number {i}" for i in range(230)]
    vectors = make_embedder(server).embed(texts)

    assert vectors.shape == (230, 32)
    assert [len(r.body["requests"]) for r in server.embedding_requests] == [100, 100, 30]
    assert list(server.embedded_texts()) == texts


def test_embedder_batch_size_is_configurable(server: GeminiServer) -> None:
    make_embedder(server, batch_size=2).embed(["a", "b", "c", "d", "e"])
    assert [len(r.body["requests"]) for r in server.embedding_requests] == [2, 2, 1]


def test_embedder_omits_output_dimensionality_when_not_configured(server: GeminiServer) -> None:
    embedder = make_embedder(server)
    vectors = embedder.embed(["hello"])
    assert "outputDimensionality" not in server.requests[0].body["requests"][0]
    assert vectors.shape == (1, 32)
    assert embedder.dimension == 32


def test_embedder_defaults_to_text_embedding_004_of_768_dimensions(server: GeminiServer) -> None:
    embedder = GeminiEmbedder(GeminiEmbedderConfig(base_url=server.base_url))
    assert embedder.dimension == 768  # known without a request
    assert server.requests == []
    assert embedder.name == "gemini/text-embedding-004"


def test_embedder_probes_the_dimension_of_an_unknown_model(server: GeminiServer) -> None:
    embedder = make_embedder(server)
    assert embedder.dimension == 32
    assert len(server.requests) == 1


def test_embedder_of_no_texts_makes_no_request(server: GeminiServer) -> None:
    vectors = make_embedder(server, embedding_dims=16).embed([])
    assert vectors.shape == (0, 16)
    assert server.requests == []


def test_embedder_rejects_an_endpoint_that_ignores_the_asked_dimensions() -> None:
    with GeminiServer(embedding_dims=8, honour_dimensions=False) as server, pytest.raises(ProviderError) as caught:
        make_embedder(server, embedding_dims=16).embed(["a"])
    assert caught.value.code == "provider_bad_response"
    assert "expected 16" in caught.value.message


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"{}",
        b'{"embeddings": [{"values": [1.0, 0.0]}]}',  # one row for two texts
        b'{"embeddings": [{"values": [1.0, 0.0]}, {"values": [1.0]}]}',
        b'{"embeddings": [{"values": [1.0, 0.0]}, {"vals": [1.0, 0.0]}]}',
        b'{"embeddings": [{"values": ["a", "b"]}, {"values": [1.0, 0.0]}]}',
    ],
)
def test_embedder_malformed_body_is_provider_bad_response(server: GeminiServer, body: bytes) -> None:
    server.respond_raw_next(200, body)
    with pytest.raises(ProviderError) as caught:
        make_embedder(server).embed(["a", "b"])
    assert caught.value.code == "provider_bad_response"


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "provider_bad_request"),
        (401, "provider_auth_failed"),
        (403, "provider_auth_failed"),
        (404, "provider_bad_request"),
        (429, "provider_rate_limited"),
        (500, "provider_unavailable"),
        (503, "provider_unavailable"),
    ],
)
def test_embedder_http_errors_map_to_provider_error_codes(server: GeminiServer, status: int, code: str) -> None:
    server.fail_next(status)
    with pytest.raises(ProviderError) as caught:
        make_embedder(server, max_retries=0).embed(["a"])
    assert caught.value.code == code


def test_the_embedder_retries_too(server: GeminiServer, fake_time: FakeTime) -> None:
    server.fail_next(429, headers={"Retry-After": "1"})
    server.fail_next(503)
    vectors = make_embedder(server, fake_time, embedding_dims=32).embed(["Lives in Lisbon"])
    assert vectors.shape == (1, 32)
    assert len(server.embedding_requests) == 3
    assert fake_time.sleeps == [1.0, 1.0]


# ---- the registry ---------------------------------------------------------------------------------------


def test_the_registry_builds_both(server: GeminiServer) -> None:
    registry = ProviderRegistry()
    assert "gemini" in registry.bundled()["llm"]
    assert "gemini" in registry.bundled()["embedder"]

    llm = registry.build_llm("gemini", {"base_url": server.base_url, "api_key": "g-key", "model": "m"})
    server.reply("hi")
    assert llm.complete(MESSAGES).text == "hi"
    assert server.requests[-1].path == "/v1beta/models/m:generateContent"

    config = {"base_url": server.base_url, "api_key": "g-key", "model": "e", "embedding_dims": 8, "batch_size": 10}
    embedder = registry.build_embedder("gemini", config)
    assert embedder.dimension == 8
    assert embedder.embed(["x"]).shape == (1, 8)
    assert server.requests[-1].path == "/v1beta/models/e:batchEmbedContents"


def test_the_defaults() -> None:
    llm = GeminiLLMConfig()
    assert (llm.model, llm.base_url, llm.max_retries, llm.total_timeout) == (
        "gemini-2.0-flash",
        "https://generativelanguage.googleapis.com",
        4,
        None,
    )
    embedder = GeminiEmbedderConfig()
    assert (embedder.model, embedder.base_url, embedder.batch_size, embedder.embedding_dims) == (
        "text-embedding-004",
        "https://generativelanguage.googleapis.com",
        100,
        None,
    )


@pytest.mark.parametrize(
    ("kind", "config", "named"),
    [
        ("llm", {"modle": "gemini-2.5-pro"}, "modle"),
        ("llm", {"temperature": "hot"}, "temperature"),
        ("llm", {"base_url": "generativelanguage.googleapis.com"}, "base_url"),
        ("llm", {"api_key": "bad\nkey"}, "api_key"),
        ("llm", {"max_retries": 11}, "max_retries"),
        ("llm", {"total_timeout": 0}, "total_timeout"),
        ("embedder", {"embedding_dims": "many"}, "embedding_dims"),
        ("embedder", {"embedding_dims": 0}, "embedding_dims"),
        ("embedder", {"batch_size": 101}, "batch_size"),
        ("embedder", {"batch_size": 0}, "batch_size"),
        ("embedder", {"region": "us-east-1"}, "region"),
    ],
)
def test_a_bad_config_is_a_validation_error(kind: str, config: dict[str, Any], named: str) -> None:
    registry = ProviderRegistry()
    build = registry.build_llm if kind == "llm" else registry.build_embedder
    with pytest.raises(ValidationError, match=named) as caught:
        build("gemini", config)
    assert "provider 'gemini'" in caught.value.message


def test_the_error_body_helper_is_gemini_shaped() -> None:
    assert json.loads(error_body(429, "Quota exceeded")) == {
        "error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}
    }
