"""The `bedrock` LLM (Converse) and embedder (Titan V2 via InvokeModel) against botocore's Stubber.

The boto3 client is real (request building and parameter validation run); Stubber answers instead of AWS.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import boto3
import numpy as np
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber

from mnemo.adapters.embedders.bedrock import BedrockEmbedder, BedrockEmbedderConfig
from mnemo.adapters.llms.bedrock import JSON_ONLY, BedrockLLM, BedrockLLMConfig
from mnemo.adapters.registry import validate
from mnemo.errors import ProviderError, ValidationError
from mnemo.ports.llm import ChatMessage

TITAN = "amazon.titan-embed-text-v2:0"


@pytest.fixture
def runtime() -> Any:
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


@pytest.fixture
def stubber(runtime: Any) -> Iterator[Stubber]:
    with Stubber(runtime) as stub:
        yield stub
        stub.assert_no_pending_responses()


def converse_response(*texts: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": t} for t in texts]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 12},
    }


def invoke_response(payload: Any) -> dict[str, Any]:
    raw = json.dumps(payload).encode()
    return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}


# ---- LLM ------------------------------------------------------------------------------------------------


def test_llm_builds_the_converse_request_and_returns_the_text(runtime: Any, stubber: Stubber) -> None:
    messages: list[ChatMessage] = [
        {"role": "system", "content": "You extract facts."},
        {"role": "user", "content": "I live in Lisbon."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "And I like tea."},
    ]
    stubber.add_response(
        "converse",
        converse_response("Lives in Lisbon.", " Likes tea."),
        expected_params={
            "modelId": "amazon.nova-pro-v1:0",
            "messages": [
                {"role": "user", "content": [{"text": "I live in Lisbon."}]},
                {"role": "assistant", "content": [{"text": "Noted."}]},
                {"role": "user", "content": [{"text": "And I like tea."}]},
            ],
            "system": [{"text": "You extract facts."}],
            "inferenceConfig": {"temperature": 0.4, "maxTokens": 123},
        },
    )
    llm = BedrockLLM(BedrockLLMConfig(model="amazon.nova-pro-v1:0", temperature=0.4, max_tokens=123), client=runtime)

    assert llm.complete(messages).text == "Lives in Lisbon. Likes tea."
    assert llm.name == "bedrock/amazon.nova-pro-v1:0"


def test_llm_json_mode_adds_the_json_only_instruction(runtime: Any, stubber: Stubber) -> None:
    stubber.add_response(
        "converse",
        converse_response('{"facts": []}'),
        expected_params={
            "modelId": "amazon.nova-lite-v1:0",
            "messages": [{"role": "user", "content": [{"text": "hello"}]}],
            "system": [{"text": "Extract."}, {"text": JSON_ONLY}],
            "inferenceConfig": {"temperature": 0.1, "maxTokens": 2000},
        },
    )
    llm = BedrockLLM(BedrockLLMConfig(), client=runtime)

    reply = llm.complete(
        [{"role": "system", "content": "Extract."}, {"role": "user", "content": "hello"}], json_mode=True
    ).text

    assert json.loads(reply) == {"facts": []}


def test_llm_json_mode_without_a_system_message_still_sends_the_instruction(runtime: Any, stubber: Stubber) -> None:
    stubber.add_response(
        "converse",
        converse_response("{}"),
        expected_params={
            "modelId": "amazon.nova-lite-v1:0",
            "messages": [{"role": "user", "content": [{"text": "decide"}]}],
            "system": [{"text": JSON_ONLY}],
            "inferenceConfig": {"temperature": 0.1, "maxTokens": 2000},
        },
    )
    llm = BedrockLLM(BedrockLLMConfig(), client=runtime)
    assert llm.complete([{"role": "user", "content": "decide"}], json_mode=True).text == "{}"


def test_llm_without_system_messages_sends_no_system_field(runtime: Any, stubber: Stubber) -> None:
    stubber.add_response(
        "converse",
        converse_response("hi"),
        expected_params={
            "modelId": "amazon.nova-lite-v1:0",
            "messages": [{"role": "user", "content": [{"text": "hello"}]}],
            "inferenceConfig": {"temperature": 0.1, "maxTokens": 2000},
        },
    )
    llm = BedrockLLM(BedrockLLMConfig(), client=runtime)
    assert llm.complete([{"role": "user", "content": "hello"}]).text == "hi"


@pytest.mark.parametrize(
    ("error_code", "status", "code"),
    [
        ("ThrottlingException", 429, "provider_rate_limited"),
        ("AccessDeniedException", 403, "provider_auth_failed"),
        ("ValidationException", 400, "provider_bad_request"),
        ("ModelTimeoutException", 408, "provider_timeout"),
        ("InternalServerException", 500, "provider_unavailable"),
        ("SomethingNewException", 500, "provider_unavailable"),
    ],
)
def test_llm_client_errors_map_to_provider_error_codes(
    runtime: Any, stubber: Stubber, error_code: str, status: int, code: str
) -> None:
    stubber.add_client_error("converse", service_error_code=error_code, http_status_code=status)
    llm = BedrockLLM(BedrockLLMConfig(), client=runtime)

    with pytest.raises(ProviderError) as caught:
        llm.complete([{"role": "user", "content": "hello"}])

    assert caught.value.code == code
    assert error_code in caught.value.message


def test_llm_reply_without_a_message_is_provider_bad_response() -> None:
    class NoMessage:
        def converse(self, **_: Any) -> dict[str, Any]:
            return {"output": {}, "stopReason": "end_turn"}

    llm = BedrockLLM(BedrockLLMConfig(), client=NoMessage())
    with pytest.raises(ProviderError) as caught:
        llm.complete([{"role": "user", "content": "hello"}])
    assert caught.value.code == "provider_bad_response"


# ---- embedder -------------------------------------------------------------------------------------------


def expected_invoke(text: str, dims: int, model: str = TITAN) -> dict[str, Any]:
    return {
        "modelId": model,
        "body": json.dumps({"inputText": text, "dimensions": dims, "normalize": True}),
        "contentType": "application/json",
        "accept": "application/json",
    }


def test_embedder_invokes_titan_once_per_text_and_returns_unit_vectors(runtime: Any, stubber: Stubber) -> None:
    texts = ["Lives in Lisbon", "Likes green tea", "Has two cats"]
    rng = np.random.default_rng(7)
    raw = [rng.standard_normal(256) * 4 for _ in texts]  # deliberately not unit length
    for text, vector in zip(texts, raw, strict=True):
        stubber.add_response(
            "invoke_model",
            invoke_response({"embedding": vector.tolist(), "inputTextTokenCount": 3}),
            expected_params=expected_invoke(text, 256),
        )
    embedder = BedrockEmbedder(BedrockEmbedderConfig(embedding_dims=256), client=runtime)

    vectors = embedder.embed(texts)

    assert embedder.dimension == 256
    assert embedder.name == f"bedrock/{TITAN}"
    assert vectors.shape == (3, 256)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    for row, vector in zip(vectors, raw, strict=True):
        np.testing.assert_allclose(row, vector / np.linalg.norm(vector), rtol=1e-5, atol=1e-6)


def test_embedder_default_is_1024_dimensions(runtime: Any, stubber: Stubber) -> None:
    stubber.add_response(
        "invoke_model",
        invoke_response({"embedding": [1.0] * 1024}),
        expected_params=expected_invoke("hello", 1024),
    )
    vectors = BedrockEmbedder(BedrockEmbedderConfig(), client=runtime).embed(["hello"])
    assert vectors.shape == (1, 1024)
    np.testing.assert_allclose(vectors[0], np.full(1024, 1 / 32), rtol=1e-5)


def test_embedder_of_no_texts_makes_no_call(runtime: Any, stubber: Stubber) -> None:
    vectors = BedrockEmbedder(BedrockEmbedderConfig(embedding_dims=512), client=runtime).embed([])
    assert vectors.shape == (0, 512)


@pytest.mark.parametrize(
    "payload",
    [{"embedding": [0.5] * 255}, {"embedding": [0.5] * 1024}, {"message": "no embedding"}, [0.5] * 256],
)
def test_embedder_wrong_size_or_missing_embedding_is_provider_bad_response(
    runtime: Any, stubber: Stubber, payload: Any
) -> None:
    stubber.add_response("invoke_model", invoke_response(payload), expected_params=expected_invoke("x", 256))
    embedder = BedrockEmbedder(BedrockEmbedderConfig(embedding_dims=256), client=runtime)
    with pytest.raises(ProviderError) as caught:
        embedder.embed(["x"])
    assert caught.value.code == "provider_bad_response"


@pytest.mark.parametrize(
    ("error_code", "code"),
    [("ThrottlingException", "provider_rate_limited"), ("AccessDeniedException", "provider_auth_failed")],
)
def test_embedder_client_errors_map_to_provider_error_codes(
    runtime: Any, stubber: Stubber, error_code: str, code: str
) -> None:
    stubber.add_response(
        "invoke_model", invoke_response({"embedding": [1.0] * 256}), expected_params=expected_invoke("a", 256)
    )
    stubber.add_client_error("invoke_model", service_error_code=error_code, http_status_code=400)
    embedder = BedrockEmbedder(BedrockEmbedderConfig(embedding_dims=256), client=runtime)
    with pytest.raises(ProviderError) as caught:
        embedder.embed(["a", "b"])
    assert caught.value.code == code


@pytest.mark.parametrize("dims", [256, 512, 1024])
def test_registry_accepts_titan_dimensions(dims: int) -> None:
    config = validate("embedder", "bedrock", {"embedding_dims": dims, "region": "eu-west-1"})
    assert isinstance(config, BedrockEmbedderConfig)
    assert config.embedding_dims == dims


@pytest.mark.parametrize("dims", [300, 0, 1536])
def test_registry_rejects_other_titan_dimensions(dims: int) -> None:
    with pytest.raises(ValidationError) as caught:
        validate("embedder", "bedrock", {"embedding_dims": dims})
    assert "embedding_dims" in caught.value.message
    assert "256, 512 or 1024" in caught.value.message


def test_registry_rejects_unknown_bedrock_config_keys() -> None:
    with pytest.raises(ValidationError) as caught:
        validate("llm", "bedrock", {"model": "amazon.nova-lite-v1:0", "api_key": "nope"})
    assert "api_key" in caught.value.message
