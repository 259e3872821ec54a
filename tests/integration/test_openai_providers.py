"""The `openai` LLM and embedder against a loopback server speaking the OpenAI protocol (real httpx calls)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from email.utils import formatdate
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.embedders.openai import OpenAIEmbedder, OpenAIEmbedderConfig
from mnemo.adapters.llms.openai import OpenAILLM, OpenAILLMConfig
from mnemo.adapters.openai_http import Pace, full_jitter
from mnemo.adapters.registry import validate
from mnemo.errors import ProviderError, ValidationError
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

    assert llm.complete(MESSAGES).text == "hi"

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

    reply = llm.complete(MESSAGES, json_mode=True).text

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
    assert llm.complete(MESSAGES).text == "ok"
    assert server.requests[0].path == "/v1/chat/completions"


def test_llm_honours_a_base_url_with_another_prefix(server: OpenAIServer) -> None:
    server.reply("ok")
    llm = OpenAILLM(OpenAILLMConfig(base_url=f"http://127.0.0.1:{server.port}/proxy/openai", model="m"))
    assert llm.complete(MESSAGES).text == "ok"
    assert server.requests[0].path == "/proxy/openai/chat/completions"


def test_llm_replies_are_answered_in_order_and_callables_see_the_request(server: OpenAIServer) -> None:
    seen: list[dict[str, Any]] = []

    def echo(body: dict[str, Any]) -> str:
        seen.append(body)
        return "echo: " + str(body["messages"][-1]["content"])

    server.reply("first", echo)
    llm = make_llm(server)
    assert llm.complete(MESSAGES).text == "first"
    assert llm.complete([{"role": "user", "content": "again"}]).text == "echo: again"
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
    llm = make_llm(server, api_key="sk-test", max_retries=0)  # one attempt: retries are tested below

    with pytest.raises(ProviderError) as caught:
        llm.complete(MESSAGES)
    assert caught.value.code == code
    assert "sk-test" not in caught.value.message

    # The failure was for that call only: the next one succeeds.
    assert llm.complete(MESSAGES).text == "after the error"


def test_llm_connection_refused_is_provider_unavailable() -> None:
    # A socket bound but not listening refuses connections, and holding it keeps the port ours.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blocker:
        blocker.bind(("127.0.0.1", 0))
        port = blocker.getsockname()[1]
        llm = OpenAILLM(OpenAILLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=0))
        with pytest.raises(ProviderError) as caught:
            llm.complete(MESSAGES)
    assert caught.value.code == "provider_unavailable"


def test_llm_timeout_is_provider_timeout(server: OpenAIServer) -> None:
    release = threading.Event()

    def stall(_body: dict[str, Any]) -> str:
        release.wait(5)
        return "too late"

    server.reply(stall)
    llm = make_llm(server, timeout=0.2, max_retries=0)
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
        make_embedder(server, embedding_dims=32, max_retries=0).embed(["x"])
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


# ---- retries of transient failures --------------------------------------------------------------------


class FakeTime:
    """A clock that real time moves, plus every sleep, which is recorded instead of waited; a fixed wall clock
    (for Retry-After dates); and a jitter that records each backoff ceiling and takes all of it."""

    WALL = 1_700_000_000.0

    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self.ceilings: list[float] = []
        self._slept = 0.0

    def clock(self) -> float:
        return time.monotonic() + self._slept

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self._slept += seconds

    def jitter(self, ceiling: float) -> float:
        self.ceilings.append(ceiling)
        return ceiling

    @property
    def pace(self) -> Pace:
        return Pace(clock=self.clock, wall_clock=lambda: self.WALL, sleep=self.sleep, jitter=self.jitter)


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


def retrying_llm(server: OpenAIServer, fake_time: FakeTime, **config: Any) -> OpenAILLM:
    config = {"base_url": server.base_url, "model": "test-model", **config}
    return OpenAILLM(OpenAILLMConfig(**config), pace=fake_time.pace)


def retrying_embedder(server: OpenAIServer, fake_time: FakeTime, **config: Any) -> OpenAIEmbedder:
    config = {"base_url": server.base_url, "model": "test-embed", "embedding_dims": 32, **config}
    return OpenAIEmbedder(OpenAIEmbedderConfig(**config), pace=fake_time.pace)


def test_a_rate_limit_then_success_is_one_successful_call(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(429)
    server.reply("hi")

    assert retrying_llm(server, fake_time).complete(MESSAGES).text == "hi"

    assert len(server.chat_requests) == 2
    assert server.chat_requests[0].body == server.chat_requests[1].body  # the same request, sent again
    assert fake_time.sleeps == [0.5]  # the first backoff
    assert server.pending_replies == 0


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_retried(server: OpenAIServer, fake_time: FakeTime, status: int) -> None:
    server.fail_next(status)
    server.fail_next(status)
    server.reply("recovered")

    assert retrying_llm(server, fake_time).complete(MESSAGES).text == "recovered"

    assert len(server.chat_requests) == 3
    assert fake_time.sleeps == [0.5, 1.0]


@pytest.mark.parametrize(
    ("headers", "waited"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"Retry-After": "0"}, 0.0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "Retry-After": "1"}, 0.25),  # OpenAI's milliseconds win
        ({"Retry-After": formatdate(FakeTime.WALL + 7, usegmt=True)}, 7.0),  # an HTTP date
        ({"Retry-After": formatdate(FakeTime.WALL - 60, usegmt=True)}, 0.0),  # a date already past
        ({"Retry-After": "soon"}, 0.5),  # nonsense: the backoff instead
        ({"Retry-After": "-3"}, 0.5),
        ({"retry-after-ms": "nan"}, 0.5),
    ],
)
def test_retry_after_is_honoured(
    server: OpenAIServer, fake_time: FakeTime, headers: dict[str, str], waited: float
) -> None:
    server.fail_next(429, headers=headers)
    server.reply("ok")

    assert retrying_llm(server, fake_time).complete(MESSAGES).text == "ok"

    assert fake_time.sleeps == [pytest.approx(waited)]


def test_retry_after_of_a_service_unavailable_is_honoured(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(503, headers={"Retry-After": "2"})
    server.fail_next(503)
    server.reply("ok")

    assert retrying_llm(server, fake_time).complete(MESSAGES).text == "ok"

    assert fake_time.sleeps == [2.0, 1.0]  # asked for, then the second backoff


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "provider_bad_request"),
        (401, "provider_auth_failed"),
        (403, "provider_auth_failed"),
        (404, "provider_bad_request"),
        (422, "provider_bad_request"),
        (501, "provider_unavailable"),
    ],
)
def test_other_errors_are_not_retried(server: OpenAIServer, fake_time: FakeTime, status: int, code: str) -> None:
    server.fail_next(status, headers={"Retry-After": "1"})
    server.reply("never asked for")

    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time, api_key="sk-test").complete(MESSAGES)

    assert caught.value.code == code
    assert f"({status})" in caught.value.message
    assert "retr" not in caught.value.message
    assert "sk-test" not in caught.value.message
    assert len(server.requests) == 1
    assert fake_time.sleeps == []


def test_a_body_that_is_not_json_is_not_retried(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.respond_raw_next(200, b"<html>bad gateway</html>", "text/html")
    server.reply("never asked for")

    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time).complete(MESSAGES)

    assert caught.value.code == "provider_bad_response"
    assert len(server.requests) == 1


def test_the_final_error_says_how_often_it_was_retried(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(429, times=5)
    server.reply("never asked for")

    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time).complete(MESSAGES)

    assert caught.value.code == "provider_rate_limited"
    assert re.fullmatch(
        r"Provider rate limit hit \(429\) after 4 retries over 7\.\d s\. Retry shortly\.", caught.value.message
    )
    assert len(server.chat_requests) == 5  # the default: 4 retries
    assert fake_time.sleeps == [0.5, 1.0, 2.0, 4.0]


def test_the_error_is_the_last_attempts(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(503)
    server.fail_next(400)

    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time).complete(MESSAGES)

    assert caught.value.code == "provider_bad_request"
    assert re.match(
        r"Provider rejected the request as malformed \(400\) after 1 retry over \d+\.\d s\.", caught.value.message
    )
    assert len(server.requests) == 2


def test_max_retries_is_configurable(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(500, times=3)

    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time, max_retries=2).complete(MESSAGES)
    assert "after 2 retries" in caught.value.message
    assert caught.value.code == "provider_unavailable"
    assert len(server.requests) == 3

    server.fail_next(429)
    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time, max_retries=0).complete(MESSAGES)
    assert caught.value.message == "Provider rate limit hit (429). Retry shortly."
    assert len(server.requests) == 4


def test_the_backoff_doubles_up_to_its_cap_with_full_jitter(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(503, times=7)

    with pytest.raises(ProviderError):
        retrying_llm(server, fake_time, max_retries=6, total_timeout=600).complete(MESSAGES)

    assert fake_time.ceilings == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    draws = [full_jitter(4.0) for _ in range(200)]
    assert all(0.0 <= d <= 4.0 for d in draws)
    assert len(set(draws)) > 100  # drawn, not fixed


def test_the_deadline_stops_retrying_and_the_error_says_so(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(503, times=10)
    started = fake_time.clock()

    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time, total_timeout=3).complete(MESSAGES)

    assert fake_time.clock() - started < 3
    assert fake_time.sleeps == [0.5, 1.0]  # the next backoff (2 s) would end past the deadline
    assert len(server.requests) == 3
    assert caught.value.code == "provider_unavailable"
    message = caught.value.message
    assert re.match(r"Provider is unavailable or returned a server error \(503\) after 2 retries over 1\.\d s", message)
    assert "stopped at the 3.0 s deadline" in message


def test_the_default_deadline_is_twice_the_timeout(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(429, headers={"Retry-After": "9"})
    server.reply("never asked for")

    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time, timeout=4).complete(MESSAGES)

    assert "it asked to wait 9.0 s, past the 8.0 s deadline" in caught.value.message


def test_a_retry_after_past_the_deadline_is_not_waited_for(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(429, headers={"Retry-After": "30"})
    server.reply("never asked for")

    with pytest.raises(ProviderError) as caught:
        retrying_llm(server, fake_time, total_timeout=10).complete(MESSAGES)

    assert fake_time.sleeps == []
    assert len(server.requests) == 1
    assert caught.value.code == "provider_rate_limited"
    assert caught.value.message == (
        "Provider rate limit hit (429); it asked to wait 30.0 s, past the 10.0 s deadline. Retry shortly."
    )


def stalling(release: threading.Event) -> Callable[[dict[str, Any]], str]:
    def stall(_body: dict[str, Any]) -> str:
        release.wait(5)
        return "too late"

    return stall


def test_a_timeout_is_retried(server: OpenAIServer, fake_time: FakeTime) -> None:
    release = threading.Event()
    server.reply(stalling(release), "in time")
    try:
        assert retrying_llm(server, fake_time, timeout=0.2, total_timeout=5).complete(MESSAGES).text == "in time"
    finally:
        release.set()
    assert len(server.chat_requests) == 2
    assert fake_time.sleeps == [0.5]


def test_timeouts_that_outlast_the_retries_are_provider_timeout(server: OpenAIServer, fake_time: FakeTime) -> None:
    release = threading.Event()
    server.reply(stalling(release), stalling(release))
    try:
        with pytest.raises(ProviderError) as caught:
            retrying_llm(server, fake_time, timeout=0.2, max_retries=1, total_timeout=5).complete(MESSAGES)
    finally:
        release.set()
    assert caught.value.code == "provider_timeout"
    assert re.match(
        r"Provider timed out \(no answer within 0\.2 s\) after 1 retry over \d+\.\d s\.", caught.value.message
    )


def test_the_deadline_cuts_an_attempts_timeout(server: OpenAIServer) -> None:
    release = threading.Event()
    server.reply(stalling(release))
    # the real clock and sleep; the server stalls until released after the call: an attempt that kept its own
    # timeout (an hour) would hang the test
    llm = make_llm(server, timeout=3600, total_timeout=0.3)
    try:
        with pytest.raises(ProviderError) as caught:
            llm.complete(MESSAGES)
    finally:
        release.set()
    assert caught.value.code == "provider_timeout"
    assert len(server.requests) == 1  # no time was left for another attempt


def test_a_refused_connection_is_retried(fake_time: FakeTime) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blocker:
        blocker.bind(("127.0.0.1", 0))
        port = blocker.getsockname()[1]
        config = OpenAILLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=2)
        with pytest.raises(ProviderError) as caught:
            OpenAILLM(config, pace=fake_time.pace).complete(MESSAGES)
    assert caught.value.code == "provider_unavailable"
    assert caught.value.message.startswith("Provider is unreachable (ConnectError) after 2 retries over ")
    assert fake_time.sleeps == [0.5, 1.0]


def test_the_embedder_retries_too(server: OpenAIServer, fake_time: FakeTime) -> None:
    server.fail_next(429, headers={"retry-after-ms": "20"})
    server.fail_next(502)
    embedder = retrying_embedder(server, fake_time)

    vectors = embedder.embed(["Lives in Lisbon"])

    assert vectors.shape == (1, 32)
    assert len(server.embedding_requests) == 3
    assert fake_time.sleeps == [0.02, 1.0]

    server.fail_next(503, times=3)
    with pytest.raises(ProviderError) as caught:
        retrying_embedder(server, fake_time, max_retries=2).embed(["x"])
    assert caught.value.code == "provider_unavailable"
    assert "(503) after 2 retries" in caught.value.message


def test_retry_settings_have_defaults() -> None:
    assert OpenAILLMConfig().max_retries == 4
    assert OpenAILLMConfig().total_timeout is None
    assert OpenAIEmbedderConfig().max_retries == 4
    assert OpenAIEmbedderConfig(total_timeout=30).total_timeout == 30.0
    assert validate("llm", "openai", {"max_retries": 0, "total_timeout": 0.5}) is not None


BAD_RETRY_SETTINGS: list[tuple[str, Any]] = [
    ("max_retries", -1),
    ("max_retries", 11),
    ("max_retries", 1.5),
    ("max_retries", True),
    ("total_timeout", 0),
    ("total_timeout", -1),
    ("total_timeout", "long"),
    ("total_timeout", "inf"),
]


@pytest.mark.parametrize("kind", ["llm", "embedder"])
@pytest.mark.parametrize(("key", "value"), BAD_RETRY_SETTINGS)
def test_bad_retry_settings_are_rejected(kind: str, key: str, value: Any) -> None:
    with pytest.raises(ValidationError, match=key):
        validate(kind, "openai", {key: value})
