"""The `openai` LLM and embedder against a loopback server speaking the OpenAI protocol (real httpx calls)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.embedders.openai import OpenAIEmbedder, OpenAIEmbedderConfig
from mnemo.adapters.llms.openai import OpenAILLM, OpenAILLMConfig
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage
from tests.support.openai_server import OpenAIServer, embedding_for

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Say hi."},
]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(embedding_dims=32) as running:
        yield running


def make_llm(server: OpenAIServer, **config: Any) -> OpenAILLM:
    return OpenAILLM(OpenAILLMConfig(**{"base_url": server.base_url, "model": "test-model", **config}))


def make_embedder(server: OpenAIServer, **config: Any) -> OpenAIEmbedder:
    return OpenAIEmbedder(OpenAIEmbedderConfig(**{"base_url": server.base_url, "model": "test-embed", **config}))


# ---- LLM ------------------------------------------------------------------------------------------------


def test_llm_sends_the_chat_request_and_returns_the_content(server: OpenAIServer) -> None:
    server.reply("hi")
    llm = make_llm(server, api_key="sk-test", temperature=0.3, max_tokens=50)

    assert llm.complete(MESSAGES) == "hi"

    (request,) = server.requests
    assert request.method == "POST"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": "test-model",
        "messages": MESSAGES,
        "temperature": 0.3,
        "max_tokens": 50,
    }
    assert llm.name == "openai/test-model"


def test_llm_json_mode_asks_for_a_json_object(server: OpenAIServer) -> None:
    server.reply('{"facts": ["Likes tea"]}')
    llm = make_llm(server)

    reply = llm.complete(MESSAGES, json_mode=True)

    assert json.loads(reply) == {"facts": ["Likes tea"]}
    assert server.requests[0].body["response_format"] == {"type": "json_object"}


def test_llm_without_json_mode_sends_no_response_format(server: OpenAIServer) -> None:
    server.reply("plain")
    make_llm(server).complete(MESSAGES)
    assert "response_format" not in server.requests[0].body


def test_llm_sends_no_authorization_header_without_a_key(server: OpenAIServer) -> None:
    server.reply("ok", "ok")
    make_llm(server).complete(MESSAGES)
    make_llm(server, api_key="").complete(MESSAGES)
    assert all("authorization" not in r.headers for r in server.requests)


def test_llm_honours_a_base_url_with_a_trailing_slash(server: OpenAIServer) -> None:
    server.reply("ok")
    llm = OpenAILLM(OpenAILLMConfig(base_url=server.base_url + "/", model="m"))
    assert llm.complete(MESSAGES) == "ok"
    assert server.requests[0].path == "/v1/chat/completions"


def test_llm_honours_a_base_url_with_another_prefix(server: OpenAIServer) -> None:
    server.reply("ok")
    llm = OpenAILLM(OpenAILLMConfig(base_url=f"http://127.0.0.1:{server.port}/proxy/openai", model="m"))
    assert llm.complete(MESSAGES) == "ok"
    assert server.requests[0].path == "/proxy/openai/chat/completions"


def test_llm_replies_are_answered_in_order_and_callables_see_the_request(server: OpenAIServer) -> None:
    seen: list[dict[str, Any]] = []

    def echo(body: dict[str, Any]) -> str:
        seen.append(body)
        return "echo: " + str(body["messages"][-1]["content"])

    server.reply("first", echo)
    llm = make_llm(server)
    assert llm.complete(MESSAGES) == "first"
    assert llm.complete([{"role": "user", "content": "again"}]) == "echo: again"
    assert seen == [server.requests[1].body]
    assert server.pending_replies == 0


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (401, "provider_auth_failed"),
        (403, "provider_auth_failed"),
        (429, "provider_rate_limited"),
        (500, "provider_unavailable"),
        (503, "provider_unavailable"),
        (400, "provider_bad_request"),
    ],
)
def test_llm_http_errors_map_to_provider_error_codes(server: OpenAIServer, status: int, code: str) -> None:
    server.fail_next(status)
    server.reply("after the error")
    llm = make_llm(server, api_key="sk-test")

    with pytest.raises(ProviderError) as caught:
        llm.complete(MESSAGES)
    assert caught.value.code == code
    assert "sk-test" not in caught.value.message

    # The failure was for that call only: the next one succeeds.
    assert llm.complete(MESSAGES) == "after the error"


def test_llm_connection_refused_is_provider_unavailable() -> None:
    # A socket bound but not listening refuses connections, and holding it keeps the port ours.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blocker:
        blocker.bind(("127.0.0.1", 0))
        port = blocker.getsockname()[1]
        llm = OpenAILLM(OpenAILLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m"))
        with pytest.raises(ProviderError) as caught:
            llm.complete(MESSAGES)
    assert caught.value.code == "provider_unavailable"


def test_llm_timeout_is_provider_timeout(server: OpenAIServer) -> None:
    release = threading.Event()

    def stall(_body: dict[str, Any]) -> str:
        release.wait(5)
        return "too late"

    server.reply(stall)
    llm = make_llm(server, timeout=0.2)
    try:
        with pytest.raises(ProviderError) as caught:
            llm.complete(MESSAGES)
    finally:
        release.set()
    assert caught.value.code == "provider_timeout"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"<html>bad gateway</html>", "text/html"),
        (b"[1, 2, 3]", "application/json"),
        (b'{"id": "x", "object": "chat.completion"}', "application/json"),
        (b'{"choices": []}', "application/json"),
        (b'{"choices": [{"message": {"role": "assistant"}}]}', "application/json"),
        (b'{"choices": [{"message": {"role": "assistant", "content": null}}]}', "application/json"),
        (b'{"choices": [{"message": {"role": "assistant", "content": 42}}]}', "application/json"),
    ],
)
def test_llm_malformed_body_is_provider_bad_response(server: OpenAIServer, body: bytes, content_type: str) -> None:
    server.respond_raw_next(200, body, content_type)
    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)
    assert caught.value.code == "provider_bad_response"


# ---- embedder -------------------------------------------------------------------------------------------


def test_embedder_restores_order_by_index_and_normalises_rows(server: OpenAIServer) -> None:
    texts = ["Lives in Lisbon", "Is allergic to peanuts", "Works as a nurse"]
    embedder = make_embedder(server, embedding_dims=32, api_key="sk-emb")

    vectors = embedder.embed(texts)

    assert vectors.shape == (3, 32)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    for row, text in zip(vectors, texts, strict=True):
        expected = np.asarray(embedding_for(text, 32))
        np.testing.assert_allclose(row, expected / np.linalg.norm(expected), rtol=1e-5, atol=1e-6)
    (request,) = server.embedding_requests
    assert request.body == {"model": "test-embed", "input": texts, "dimensions": 32}
    assert request.headers["authorization"] == "Bearer sk-emb"


def test_embedder_batches_by_batch_size(server: OpenAIServer) -> None:
    texts = [f"text number {i}" for i in range(7)]
    embedder = make_embedder(server, embedding_dims=32, batch_size=3)

    vectors = embedder.embed(texts)

    assert [r.body["input"] for r in server.embedding_requests] == [texts[0:3], texts[3:6], texts[6:7]]
    reference = make_embedder(server, embedding_dims=32).embed(texts)  # one batch
    np.testing.assert_allclose(vectors, reference, rtol=1e-6)


def test_embedder_omits_dimensions_when_not_configured(server: OpenAIServer) -> None:
    embedder = make_embedder(server, model="text-embedding-3-small")
    assert embedder.dimension == 1536  # a known model: no request needed
    assert server.requests == []

    vectors = embedder.embed(["hello"])

    assert "dimensions" not in server.embedding_requests[0].body
    assert vectors.shape == (1, 32)  # the endpoint's answer wins
    assert embedder.dimension == 32


def test_embedder_probes_the_dimension_of_an_unknown_model(server: OpenAIServer) -> None:
    embedder = make_embedder(server, model="nomic-embed-text")

    assert embedder.dimension == 32
    assert embedder.dimension == 32  # probed once, then remembered

    (probe,) = server.embedding_requests
    assert probe.body["model"] == "nomic-embed-text"
    assert len(probe.body["input"]) == 1
    assert "dimensions" not in probe.body


def test_embedder_uses_configured_dims_without_a_probe(server: OpenAIServer) -> None:
    embedder = make_embedder(server, model="nomic-embed-text", embedding_dims=16)
    assert embedder.dimension == 16
    assert server.requests == []
    assert embedder.embed(["a b c"]).shape == (1, 16)


def test_embedder_of_no_texts_makes_no_request(server: OpenAIServer) -> None:
    vectors = make_embedder(server, embedding_dims=32).embed([])
    assert vectors.shape == (0, 32)
    assert server.requests == []


@pytest.mark.parametrize(
    ("status", "code"),
    [(401, "provider_auth_failed"), (429, "provider_rate_limited"), (500, "provider_unavailable")],
)
def test_embedder_http_errors_map_to_provider_error_codes(server: OpenAIServer, status: int, code: str) -> None:
    server.fail_next(status)
    with pytest.raises(ProviderError) as caught:
        make_embedder(server, embedding_dims=32).embed(["x"])
    assert caught.value.code == code


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b'{"object": "list"}',
        b'{"data": [{"embedding": [1.0, 0.0]}]}',
        b'{"data": [{"index": 0, "embedding": [1.0, 0.0]}, {"index": 1, "embedding": [0.0, 1.0]}]}',
        b'{"data": [{"index": 0, "embedding": [1.0, 0.0, 0.0]}]}',
        b'{"data": [{"index": 0, "embedding": 1.0}]}',
        b'{"data": [{"index": 0, "embedding": ["a", "b"]}]}',
    ],
)
def test_embedder_malformed_body_is_provider_bad_response(server: OpenAIServer, body: bytes) -> None:
    server.respond_raw_next(200, body)
    with pytest.raises(ProviderError) as caught:
        make_embedder(server, embedding_dims=2).embed(["only one text"])
    assert caught.value.code == "provider_bad_response"


def test_embedder_rejects_an_endpoint_that_ignores_the_asked_dimensions() -> None:
    with OpenAIServer(embedding_dims=48, honour_dimensions=False) as ignoring:
        embedder = make_embedder(ignoring, embedding_dims=32)
        with pytest.raises(ProviderError) as caught:
            embedder.embed(["Lives in Lisbon"])
    assert caught.value.code == "provider_bad_response"
    assert embedder.dimension == 32


def test_embedder_rejects_rows_of_different_lengths(server: OpenAIServer) -> None:
    body = b'{"data": [{"index": 0, "embedding": [1.0, 0.0]}, {"index": 1, "embedding": [1.0]}]}'
    server.respond_raw_next(200, body)
    with pytest.raises(ProviderError) as caught:
        make_embedder(server).embed(["a", "b"])
    assert caught.value.code == "provider_bad_response"
