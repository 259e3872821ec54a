"""The `ollama` LLM and embedder against a loopback server speaking Ollama's native API (real httpx calls)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.embedders.ollama import OllamaEmbedder, OllamaEmbedderConfig
from mnemo.adapters.llms.ollama import OllamaLLM, OllamaLLMConfig
from mnemo.adapters.openai_http import Pace
from mnemo.adapters.registry import ProviderRegistry, validate
from mnemo.errors import ProviderError, ValidationError
from mnemo.ports.llm import ChatMessage
from tests.support.ollama_server import HTTPFailure, OllamaServer, embedding_for

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Say hi."},
]


@pytest.fixture
def server() -> Iterator[OllamaServer]:
    with OllamaServer(embedding_dims=32) as running:
        yield running


class FakeTime:
    """A clock that real time moves, plus every sleep, which is recorded instead of waited; a jitter that takes
    the whole backoff ceiling."""

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


def make_llm(server: OllamaServer, fake_time: FakeTime | None = None, **config: Any) -> OllamaLLM:
    typed = OllamaLLMConfig(**{"base_url": server.base_url, "model": "llama3.2", **config})
    return OllamaLLM(typed, pace=fake_time.pace if fake_time else None)


def make_embedder(server: OllamaServer, fake_time: FakeTime | None = None, **config: Any) -> OllamaEmbedder:
    typed = OllamaEmbedderConfig(
        **{"base_url": server.base_url, "model": "nomic-embed-text", "embedding_dims": 32, **config}
    )
    return OllamaEmbedder(typed, pace=fake_time.pace if fake_time else None)


# ---- LLM ------------------------------------------------------------------------------------------------


def test_llm_posts_a_native_chat_request_and_returns_the_content(server: OllamaServer) -> None:
    server.reply("hi")
    llm = make_llm(server, temperature=0.3, max_tokens=50)

    assert llm.complete(MESSAGES).text == "hi"

    (request,) = server.requests
    assert request.method == "POST"
    assert request.path == "/api/chat"
    assert request.headers["content-type"] == "application/json"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "llama3.2",
        "messages": MESSAGES,
        "stream": False,
        "options": {"temperature": 0.3, "num_predict": 50},
    }
    assert llm.name == "ollama/llama3.2"


def test_llm_json_mode_asks_for_format_json(server: OllamaServer) -> None:
    server.reply('{"facts": ["Likes tea"]}', "plain")
    llm = make_llm(server)

    assert json.loads(llm.complete(MESSAGES, json_mode=True).text) == {"facts": ["Likes tea"]}
    assert llm.complete(MESSAGES).text == "plain"

    assert server.requests[0].body["format"] == "json"
    assert "format" not in server.requests[1].body


def test_llm_omits_options_left_to_the_model(server: OllamaServer) -> None:
    server.reply("ok", "ok")
    make_llm(server, temperature=None, max_tokens=None).complete(MESSAGES)
    make_llm(server, temperature=0.0).complete(MESSAGES)
    assert server.requests[0].body["options"] == {}
    assert server.requests[1].body["options"] == {"temperature": 0.0, "num_predict": 2000}


def test_llm_sends_an_api_key_as_a_bearer_token(server: OllamaServer) -> None:
    server.reply("ok")
    make_llm(server, api_key="proxy-key").complete(MESSAGES)
    assert server.requests[0].headers["authorization"] == "Bearer proxy-key"


def test_llm_honours_a_base_url_with_a_prefix_and_a_trailing_slash(server: OllamaServer) -> None:
    server.reply("ok")
    llm = make_llm(server, base_url=f"{server.base_url}/proxy/ollama/")
    assert llm.complete(MESSAGES).text == "ok"
    assert server.requests[0].path == "/proxy/ollama/api/chat"


def test_llm_callable_replies_see_the_request(server: OllamaServer) -> None:
    server.reply("first", lambda body: "echo: " + str(body["messages"][-1]["content"]))
    llm = make_llm(server)
    assert llm.complete(MESSAGES).text == "first"
    assert llm.complete([{"role": "user", "content": "again"}]).text == "echo: again"
    assert server.pending_replies == 0


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "provider_bad_request"),
        (404, "provider_bad_request"),
        (500, "provider_unavailable"),
        (503, "provider_unavailable"),
        (401, "provider_auth_failed"),  # from a proxy in front of Ollama
        (429, "provider_rate_limited"),
    ],
)
def test_llm_http_errors_map_to_provider_error_codes(server: OllamaServer, status: int, code: str) -> None:
    server.fail_next(status)
    server.reply("after the error")
    llm = make_llm(server, api_key="proxy-key", max_retries=0)

    with pytest.raises(ProviderError) as caught:
        llm.complete(MESSAGES)
    assert caught.value.code == code
    assert f"({status})" in caught.value.message
    assert "proxy-key" not in caught.value.message

    assert llm.complete(MESSAGES).text == "after the error"  # the failure was for that call only


def test_llm_a_model_not_found_says_to_check_the_model(server: OllamaServer) -> None:
    server.reply(HTTPFailure(404))
    with pytest.raises(ProviderError) as caught:
        make_llm(server, model="no-such-model").complete(MESSAGES)
    assert caught.value.code == "provider_bad_request"
    assert "model" in caught.value.message
    assert len(server.requests) == 1  # not retried


def test_llm_a_503_is_retried_then_succeeds(server: OllamaServer, fake_time: FakeTime) -> None:
    server.fail_next(503, headers={"Retry-After": "2"})
    server.fail_next(503)
    server.reply("recovered")

    assert make_llm(server, fake_time).complete(MESSAGES).text == "recovered"

    assert len(server.chat_requests) == 3
    assert server.chat_requests[0].body == server.chat_requests[2].body  # the same request, sent again
    assert fake_time.sleeps == [2.0, 1.0]  # the delay asked for, then the second backoff


def test_llm_a_503_that_persists_says_how_often_it_was_retried(server: OllamaServer, fake_time: FakeTime) -> None:
    server.fail_next(503, times=3)
    with pytest.raises(ProviderError) as caught:
        make_llm(server, fake_time, max_retries=2).complete(MESSAGES)
    assert caught.value.code == "provider_unavailable"
    assert "(503) after 2 retries" in caught.value.message
    assert len(server.requests) == 3


def test_llm_connection_refused_is_provider_unavailable(fake_time: FakeTime) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blocker:
        blocker.bind(("127.0.0.1", 0))
        port = blocker.getsockname()[1]
        config = OllamaLLMConfig(base_url=f"http://127.0.0.1:{port}", max_retries=1)
        with pytest.raises(ProviderError) as caught:
            OllamaLLM(config, pace=fake_time.pace).complete(MESSAGES)
    assert caught.value.code == "provider_unavailable"
    assert fake_time.sleeps == [0.5]


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"<html>bad gateway</html>", "text/html"),
        (b"[1, 2, 3]", "application/json"),
        (b'{"model": "llama3.2", "done": true}', "application/json"),
        (b'{"message": "hi", "done": true}', "application/json"),
        (b'{"message": {"role": "assistant"}, "done": true}', "application/json"),
        (b'{"message": {"role": "assistant", "content": null}, "done": true}', "application/json"),
        (b'{"message": {"role": "assistant", "content": 42}, "done": true}', "application/json"),
        (b'{"error": "something went wrong"}', "application/json"),
    ],
)
def test_llm_malformed_body_is_provider_bad_response(
    server: OllamaServer, fake_time: FakeTime, body: bytes, content_type: str
) -> None:
    server.respond_raw_next(200, body, content_type)
    with pytest.raises(ProviderError) as caught:
        make_llm(server, fake_time).complete(MESSAGES)
    assert caught.value.code == "provider_bad_response"
    assert len(server.requests) == 1  # not retried


# ---- embedder -------------------------------------------------------------------------------------------


def test_embedder_posts_a_native_embed_request_and_normalises_rows(server: OllamaServer) -> None:
    texts = ["Lives in Lisbon", "Is allergic to peanuts", "Works as a nurse"]
    embedder = make_embedder(server)

    vectors = embedder.embed(texts)

    assert vectors.shape == (3, 32)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    for row, text in zip(vectors, texts, strict=True):
        expected = np.asarray(embedding_for(text, 32))
        np.testing.assert_allclose(row, expected / np.linalg.norm(expected), rtol=1e-5, atol=1e-6)
    (request,) = server.requests
    assert request.method == "POST"
    assert request.path == "/api/embed"
    assert request.body == {"model": "nomic-embed-text", "input": texts}
    assert "authorization" not in request.headers
    assert embedder.name == "ollama/nomic-embed-text"


def test_embedder_batches_by_batch_size(server: OllamaServer) -> None:
    texts = [f"text number {i}" for i in range(7)]

    vectors = make_embedder(server, batch_size=3).embed(texts)

    assert [r.body["input"] for r in server.embed_requests] == [texts[0:3], texts[3:6], texts[6:7]]
    reference = make_embedder(server).embed(texts)  # one batch
    np.testing.assert_allclose(vectors, reference, rtol=1e-6)


def test_embedder_dimension_is_the_configured_one_without_a_request(server: OllamaServer) -> None:
    assert OllamaEmbedderConfig().embedding_dims == 768
    assert make_embedder(server, embedding_dims=32).dimension == 32
    assert server.requests == []


def test_embedder_of_no_texts_makes_no_request(server: OllamaServer) -> None:
    vectors = make_embedder(server).embed([])
    assert vectors.shape == (0, 32)
    assert vectors.dtype == np.float32
    assert server.requests == []


def test_embedder_sends_an_api_key_as_a_bearer_token(server: OllamaServer) -> None:
    make_embedder(server, api_key="proxy-key").embed(["x"])
    assert server.requests[0].headers["authorization"] == "Bearer proxy-key"


def test_embedder_rejects_embeddings_of_another_dimension(server: OllamaServer) -> None:
    embedder = make_embedder(server, embedding_dims=768)  # the server answers 32
    with pytest.raises(ProviderError) as caught:
        embedder.embed(["Lives in Lisbon"])
    assert caught.value.code == "provider_bad_response"
    assert "768" in caught.value.message
    assert embedder.dimension == 768


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b'{"model": "nomic-embed-text"}',
        b'{"embeddings": null}',
        b'{"embeddings": [[1.0, 0.0]]}',  # one row for two texts
        b'{"embeddings": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]}',  # three
        b'{"embeddings": [[1.0, 0.0], [1.0]]}',  # rows of different lengths
        b'{"embeddings": [1.0, 0.0]}',
        b'{"embeddings": [["a", "b"], ["c", "d"]]}',
        b'{"embeddings": [[1.0, NaN], [0.0, 1.0]]}',
        b'{"error": "something went wrong"}',
    ],
)
def test_embedder_malformed_body_is_provider_bad_response(server: OllamaServer, body: bytes) -> None:
    server.respond_raw_next(200, body)
    with pytest.raises(ProviderError) as caught:
        make_embedder(server, embedding_dims=2).embed(["one text", "another"])
    assert caught.value.code == "provider_bad_response"


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "provider_bad_request"),
        (404, "provider_bad_request"),
        (500, "provider_unavailable"),
        (503, "provider_unavailable"),
    ],
)
def test_embedder_http_errors_map_to_provider_error_codes(server: OllamaServer, status: int, code: str) -> None:
    server.fail_next(status)
    with pytest.raises(ProviderError) as caught:
        make_embedder(server, max_retries=0).embed(["x"])
    assert caught.value.code == code


def test_embedder_a_503_is_retried_then_succeeds(server: OllamaServer, fake_time: FakeTime) -> None:
    server.fail_next(503)
    vectors = make_embedder(server, fake_time).embed(["Lives in Lisbon"])
    assert vectors.shape == (1, 32)
    assert len(server.embed_requests) == 2
    assert fake_time.sleeps == [0.5]


# ---- the registry ---------------------------------------------------------------------------------------


def test_the_registry_builds_both_providers(server: OllamaServer) -> None:
    registry = ProviderRegistry()
    assert "ollama" in registry.bundled()["llm"]
    assert "ollama" in registry.bundled()["embedder"]

    llm = registry.build_llm("ollama", {"base_url": server.base_url, "model": "llama3.2", "max_tokens": 64})
    embedder = registry.build_embedder("ollama", {"base_url": server.base_url, "embedding_dims": 32})
    server.reply("hi")

    assert isinstance(llm, OllamaLLM)
    assert llm.complete(MESSAGES).text == "hi"
    assert isinstance(embedder, OllamaEmbedder)
    assert embedder.embed(["x"]).shape == (1, 32)
    assert server.requests[1].body["model"] == "nomic-embed-text"


def test_the_defaults_point_at_a_local_ollama() -> None:
    llm = OllamaLLMConfig()
    embedder = OllamaEmbedderConfig()
    assert (llm.base_url, llm.model, llm.api_key) == ("http://localhost:11434", "llama3.2", None)
    assert (embedder.base_url, embedder.model, embedder.embedding_dims) == (
        "http://localhost:11434",
        "nomic-embed-text",
        768,
    )


@pytest.mark.parametrize(
    ("kind", "config", "key"),
    [
        ("llm", {"base_url": "localhost:11434"}, "base_url"),
        ("llm", {"model": ""}, "model"),
        ("llm", {"max_tokens": 0}, "max_tokens"),
        ("llm", {"max_retries": 11}, "max_retries"),
        ("llm", {"total_timeout": 0}, "total_timeout"),
        ("llm", {"api_key": "bad\nkey"}, "api_key"),
        ("llm", {"stream": True}, "stream"),
        ("embedder", {"embedding_dims": 0}, "embedding_dims"),
        ("embedder", {"batch_size": 0}, "batch_size"),
        ("embedder", {"max_retries": -1}, "max_retries"),
        ("embedder", {"dimensions": 768}, "dimensions"),
    ],
)
def test_a_bad_config_is_a_validation_error(kind: str, config: dict[str, Any], key: str) -> None:
    with pytest.raises(ValidationError, match=key):
        validate(kind, "ollama", config)
    registry = ProviderRegistry()
    build = registry.build_llm if kind == "llm" else registry.build_embedder
    with pytest.raises(ValidationError, match=key):
        build("ollama", config)
