"""The `azure_openai` LLM and embedder against a loopback server speaking Azure OpenAI's REST API (real httpx)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from mnemo.adapters.embedders.azure_openai import AzureOpenAIEmbedder, AzureOpenAIEmbedderConfig
from mnemo.adapters.llms.azure_openai import AzureOpenAILLM, AzureOpenAILLMConfig
from mnemo.adapters.openai_http import Pace
from mnemo.adapters.registry import ProviderRegistry, validate
from mnemo.errors import ProviderError, ValidationError
from mnemo.ports.llm import ChatMessage
from mnemo.services.config_secrets import redact
from tests.support.openai_server import OpenAIServer, embedding_for

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Say hi."},
]
CHAT_PATH = "/openai/deployments/gpt-4o-mini/chat/completions"
EMBED_PATH = "/openai/deployments/embed-3-small/embeddings"


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(embedding_dims=32) as running:
        yield running


def endpoint(server: OpenAIServer) -> str:
    return f"http://127.0.0.1:{server.port}"


def llm_config(server: OpenAIServer, **config: Any) -> dict[str, Any]:
    return {"endpoint": endpoint(server), "deployment": "gpt-4o-mini", "api_key": "az-key", **config}


def embedder_config(server: OpenAIServer, **config: Any) -> dict[str, Any]:
    return {"endpoint": endpoint(server), "deployment": "embed-3-small", "api_key": "az-key", **config}


def make_llm(server: OpenAIServer, pace: Pace | None = None, **config: Any) -> AzureOpenAILLM:
    return AzureOpenAILLM(AzureOpenAILLMConfig(**llm_config(server, **config)), pace=pace)


def make_embedder(server: OpenAIServer, pace: Pace | None = None, **config: Any) -> AzureOpenAIEmbedder:
    return AzureOpenAIEmbedder(AzureOpenAIEmbedderConfig(**embedder_config(server, **config)), pace=pace)


def azure_error(server: OpenAIServer, status: int, code: str, message: str, **headers: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    server.respond_raw_next(status, body, headers=headers)


class FakeTime:
    """Sleeps are recorded, not waited; the clock moves by them."""

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


# ---- LLM ------------------------------------------------------------------------------------------------


def test_llm_posts_to_the_deployment_with_the_api_version_and_api_key(server: OpenAIServer) -> None:
    server.reply("hi")
    llm = make_llm(server, temperature=0.3, max_tokens=50)

    assert llm.complete(MESSAGES).text == "hi"

    (request,) = server.requests
    assert request.method == "POST"
    assert request.path == CHAT_PATH
    assert request.query == "api-version=2024-10-21"
    assert request.headers["api-key"] == "az-key"
    assert "authorization" not in request.headers
    assert request.headers["content-type"] == "application/json"
    assert request.body == {"messages": MESSAGES, "temperature": 0.3, "max_tokens": 50}
    assert llm.name == "azure_openai/gpt-4o-mini"


def test_llm_with_an_azure_ad_token_sends_a_bearer_token(server: OpenAIServer) -> None:
    server.reply("hi")
    config = llm_config(server, api_key=None, azure_ad_token="eyJ.token", api_version="2025-01-01-preview")
    llm = AzureOpenAILLM(AzureOpenAILLMConfig(**config))

    assert llm.complete(MESSAGES).text == "hi"

    (request,) = server.requests
    assert request.headers["authorization"] == "Bearer eyJ.token"
    assert "api-key" not in request.headers
    assert request.query == "api-version=2025-01-01-preview"


def test_llm_honours_an_endpoint_with_a_trailing_slash(server: OpenAIServer) -> None:
    server.reply("hi")
    make_llm(server, endpoint=endpoint(server) + "/").complete(MESSAGES)
    assert server.requests[0].path == CHAT_PATH


def test_llm_json_mode_asks_for_a_json_object(server: OpenAIServer) -> None:
    server.reply('{"facts": ["Likes tea"]}')

    reply = make_llm(server).complete(MESSAGES, json_mode=True).text

    assert json.loads(reply) == {"facts": ["Likes tea"]}
    assert server.requests[0].body["response_format"] == {"type": "json_object"}


def test_llm_without_json_mode_sends_no_response_format(server: OpenAIServer) -> None:
    server.reply("plain")
    make_llm(server).complete(MESSAGES)
    assert "response_format" not in server.requests[0].body


@pytest.mark.parametrize(
    ("status", "error_code", "code"),
    [
        (400, "invalid_request_error", "provider_bad_request"),
        (401, "401", "provider_auth_failed"),
        (403, "403", "provider_auth_failed"),
        (404, "DeploymentNotFound", "provider_bad_request"),
        (429, "429", "provider_rate_limited"),
        (500, "InternalServerError", "provider_unavailable"),
        (503, "ServiceUnavailable", "provider_unavailable"),
    ],
)
def test_llm_http_errors_map_to_provider_error_codes(
    server: OpenAIServer, status: int, error_code: str, code: str
) -> None:
    azure_error(server, status, error_code, "scripted")

    with pytest.raises(ProviderError) as caught:
        make_llm(server, max_retries=0).complete(MESSAGES)

    assert caught.value.code == code
    assert len(server.requests) == 1  # no retries allowed


def test_llm_deployment_not_found_says_what_to_check(server: OpenAIServer) -> None:
    azure_error(server, 404, "DeploymentNotFound", "The API deployment for this resource does not exist.")

    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)

    assert caught.value.code == "provider_bad_request"
    assert "deployment" in str(caught.value)
    assert len(server.requests) == 1  # a 404 is not retried


def test_llm_content_filter_is_a_bad_request_that_names_the_filter(server: OpenAIServer) -> None:
    body = {
        "error": {
            "code": "content_filter",
            "message": "The response was filtered due to the prompt triggering the content management policy.",
            "status": 400,
            "innererror": {"code": "ResponsibleAIPolicyViolation", "content_filter_result": {}},
        }
    }
    server.respond_raw_next(400, json.dumps(body).encode())

    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)

    assert caught.value.code == "provider_bad_request"
    assert "content filter refused" in str(caught.value)
    assert len(server.requests) == 1


def test_llm_completion_withheld_by_the_content_filter_is_a_bad_request(server: OpenAIServer) -> None:
    reply = {"choices": [{"index": 0, "finish_reason": "content_filter", "message": {"role": "assistant"}}]}
    server.respond_raw_next(200, json.dumps(reply).encode())

    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)

    assert caught.value.code == "provider_bad_request"
    assert "content filter refused" in str(caught.value)


def test_llm_other_400s_are_not_called_content_filter(server: OpenAIServer) -> None:
    azure_error(server, 400, "invalid_request_error", "bad")

    with pytest.raises(ProviderError) as caught:
        make_llm(server).complete(MESSAGES)

    assert "content filter" not in str(caught.value)


def test_llm_rate_limit_with_retry_after_ms_is_retried_then_succeeds(server: OpenAIServer) -> None:
    fake = FakeTime()
    azure_error(server, 429, "429", "Rate limit is exceeded.", **{"retry-after-ms": "1500", "retry-after": "2"})
    server.reply("hi")

    assert make_llm(server, pace=fake.pace).complete(MESSAGES).text == "hi"

    assert len(server.chat_requests) == 2
    assert fake.sleeps == [pytest.approx(1.5)]  # retry-after-ms wins over retry-after
    assert all(r.query == "api-version=2024-10-21" for r in server.chat_requests)
    assert server.chat_requests[0].body == server.chat_requests[1].body


def test_llm_rate_limit_with_retry_after_is_retried(server: OpenAIServer) -> None:
    fake = FakeTime()
    azure_error(server, 429, "429", "Rate limit is exceeded.", **{"retry-after": "4"})
    server.reply("hi")

    assert make_llm(server, pace=fake.pace).complete(MESSAGES).text == "hi"

    assert fake.sleeps == [pytest.approx(4.0)]


def test_llm_gives_up_after_max_retries(server: OpenAIServer) -> None:
    fake = FakeTime()
    for _ in range(3):
        azure_error(server, 503, "ServiceUnavailable", "busy")

    with pytest.raises(ProviderError) as caught:
        make_llm(server, pace=fake.pace, max_retries=2).complete(MESSAGES)

    assert caught.value.code == "provider_unavailable"
    assert "after 2 retries" in str(caught.value)
    assert len(server.requests) == 3


# ---- embedder -------------------------------------------------------------------------------------------


def test_embedder_posts_to_the_deployment_and_normalises_rows(server: OpenAIServer) -> None:
    embedder = make_embedder(server, embedding_dims=16)

    vectors = embedder.embed(["alpha beta", "gamma"])

    (request,) = server.requests
    assert request.path == EMBED_PATH
    assert request.query == "api-version=2024-10-21"
    assert request.headers["api-key"] == "az-key"
    assert "authorization" not in request.headers
    assert request.body == {"input": ["alpha beta", "gamma"], "dimensions": 16}
    assert vectors.shape == (2, 16)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    expected = np.asarray(embedding_for("alpha beta", 16), dtype=np.float32)
    assert np.allclose(vectors[0], expected / np.linalg.norm(expected), atol=1e-5)  # order restored by index
    assert embedder.dimension == 16
    assert embedder.name == "azure_openai/embed-3-small"


def test_embedder_with_an_azure_ad_token_sends_a_bearer_token(server: OpenAIServer) -> None:
    embedder = make_embedder(server, api_key=None, azure_ad_token="eyJ.token")

    embedder.embed(["x"])

    assert server.requests[0].headers["authorization"] == "Bearer eyJ.token"
    assert "api-key" not in server.requests[0].headers


def test_embedder_without_dims_sends_none_and_probes_the_dimension(server: OpenAIServer) -> None:
    embedder = make_embedder(server)

    assert embedder.dimension == 32
    assert "dimensions" not in server.requests[0].body


def test_embedder_batches_by_batch_size(server: OpenAIServer) -> None:
    make_embedder(server, batch_size=2).embed(["a", "b", "c", "d", "e"])
    assert [r.body["input"] for r in server.embedding_requests] == [["a", "b"], ["c", "d"], ["e"]]


@pytest.mark.parametrize(
    ("status", "error_code", "code"),
    [
        (400, "invalid_request_error", "provider_bad_request"),
        (401, "401", "provider_auth_failed"),
        (403, "403", "provider_auth_failed"),
        (404, "DeploymentNotFound", "provider_bad_request"),
        (429, "429", "provider_rate_limited"),
        (500, "InternalServerError", "provider_unavailable"),
        (503, "ServiceUnavailable", "provider_unavailable"),
    ],
)
def test_embedder_http_errors_map_to_provider_error_codes(
    server: OpenAIServer, status: int, error_code: str, code: str
) -> None:
    azure_error(server, status, error_code, "scripted")

    with pytest.raises(ProviderError) as caught:
        make_embedder(server, max_retries=0).embed(["x"])

    assert caught.value.code == code


def test_embedder_content_filter_is_a_bad_request(server: OpenAIServer) -> None:
    azure_error(server, 400, "content_filter", "filtered")

    with pytest.raises(ProviderError) as caught:
        make_embedder(server).embed(["x"])

    assert caught.value.code == "provider_bad_request"
    assert "content filter refused" in str(caught.value)


def test_embedder_rate_limit_with_retry_after_ms_is_retried_then_succeeds(server: OpenAIServer) -> None:
    fake = FakeTime()
    azure_error(server, 429, "429", "Rate limit is exceeded.", **{"retry-after-ms": "250"})

    vectors = make_embedder(server, pace=fake.pace, embedding_dims=8).embed(["x"])

    assert vectors.shape == (1, 8)
    assert len(server.embedding_requests) == 2
    assert fake.sleeps == [pytest.approx(0.25)]


# ---- configuration and the registry ---------------------------------------------------------------------


def test_the_registry_builds_both_providers(server: OpenAIServer) -> None:
    registry = ProviderRegistry()
    assert "azure_openai" in registry.bundled()["llm"]
    assert "azure_openai" in registry.bundled()["embedder"]

    llm = registry.build_llm("azure_openai", llm_config(server))
    embedder = registry.build_embedder("azure_openai", embedder_config(server, embedding_dims=8))
    server.reply("hi")

    assert isinstance(llm, AzureOpenAILLM)
    assert isinstance(embedder, AzureOpenAIEmbedder)
    assert llm.complete(MESSAGES).text == "hi"
    assert embedder.embed(["x"]).shape == (1, 8)
    assert [r.path for r in server.requests] == [CHAT_PATH, EMBED_PATH]


def test_config_defaults() -> None:
    config = AzureOpenAILLMConfig(endpoint="https://res.openai.azure.com", deployment="d", api_key="k")
    assert (config.api_version, config.temperature, config.max_tokens) == ("2024-10-21", 0.1, 2000)
    assert (config.timeout, config.max_retries, config.total_timeout) == (60.0, 4, None)
    embedder = AzureOpenAIEmbedderConfig(endpoint="https://res.openai.azure.com", deployment="d", api_key="k")
    assert (embedder.embedding_dims, embedder.batch_size, embedder.api_version) == (None, 256, "2024-10-21")


BASE = {"endpoint": "https://res.openai.azure.com", "deployment": "gpt-4o-mini"}


@pytest.mark.parametrize("kind", ["llm", "embedder"])
@pytest.mark.parametrize(
    ("config", "problem"),
    [
        (BASE, "exactly one of api_key and azure_ad_token"),  # neither
        ({**BASE, "api_key": "k", "azure_ad_token": "t"}, "exactly one of api_key and azure_ad_token"),  # both
        ({**BASE, "api_key": ""}, "api_key"),
        ({"deployment": "d", "api_key": "k"}, "endpoint"),
        ({"endpoint": "https://res.openai.azure.com", "api_key": "k"}, "deployment"),
        ({**BASE, "endpoint": "res.openai.azure.com", "api_key": "k"}, "endpoint"),
        ({**BASE, "deployment": "a/../b", "api_key": "k"}, "deployment"),
        ({**BASE, "api_version": "latest", "api_key": "k"}, "api_version"),
        ({**BASE, "api_key": "k\n"}, "api_key"),
        ({**BASE, "api_key": "k", "max_retries": 11}, "max_retries"),
        ({**BASE, "api_key": "k", "total_timeout": 0}, "total_timeout"),
        ({**BASE, "api_key": "k", "model": "gpt-4o"}, "model"),  # Azure names a deployment, not a model
    ],
)
def test_a_bad_config_is_a_validation_error(kind: str, config: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError) as caught:
        validate(kind, "azure_openai", config)
    assert problem in str(caught.value)


def test_the_registry_refuses_to_build_from_a_bad_config() -> None:
    with pytest.raises(ValidationError):
        ProviderRegistry().build_llm("azure_openai", {**BASE, "api_key": "k", "azure_ad_token": "t"})
    with pytest.raises(ValidationError):
        ProviderRegistry().build_embedder("azure_openai", BASE)


def test_the_credentials_are_redacted_when_shown() -> None:
    shown = redact({"llm": {"provider": "azure_openai", "config": {**BASE, "azure_ad_token": "t"}}})
    assert shown["llm"]["config"]["azure_ad_token"] == "[redacted]"
    assert redact({"api_key": "k"}) == {"api_key": "[redacted]"}


# ---- through POST /configure ----------------------------------------------------------------------------


def test_configure_accepts_azure_openai_and_shows_the_token_redacted(client: TestClient, server: OpenAIServer) -> None:
    config = llm_config(server, azure_ad_token="eyJ.secret")
    del config["api_key"]
    section = {"provider": "azure_openai", "config": config}

    response = client.post("/configure", json={"llm": section})

    assert response.status_code == 200, response.text
    shown = client.get("/configure").json()["llm"]
    assert shown["provider"] == "azure_openai"
    assert shown["config"]["azure_ad_token"] == "[redacted]"
    assert "eyJ.secret" not in json.dumps(client.get("/configure").json())


def test_configure_rejects_azure_openai_with_both_credentials(client: TestClient, server: OpenAIServer) -> None:
    section = {"provider": "azure_openai", "config": llm_config(server, azure_ad_token="t")}

    response = client.post("/configure", json={"llm": section})

    assert response.status_code == 400
    assert "exactly one of api_key and azure_ad_token" in response.json()["detail"]


def test_configure_switches_from_api_key_to_a_token_when_the_key_is_cleared(
    client: TestClient, server: OpenAIServer
) -> None:
    first = {"provider": "azure_openai", "config": llm_config(server)}
    assert client.post("/configure", json={"llm": first}).status_code == 200
    switch = {"provider": "azure_openai", "config": {"api_key": None, "azure_ad_token": "eyJ.new"}}

    assert client.post("/configure", json={"llm": switch}).status_code == 200

    config = client.get("/configure").json()["llm"]["config"]
    assert config["api_key"] is None
    assert config["azure_ad_token"] == "[redacted]"
