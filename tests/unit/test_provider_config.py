"""The keys every HTTP provider config shares (mnemo.adapters.provider_config): their order and checks, the retry
policy they make, the client they make, and the Bedrock providers' model, region and runtime client."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from mnemo.adapters.gemini_http import GeminiHttp
from mnemo.adapters.openai_http import OpenAIHttp, Pace
from mnemo.adapters.provider_config import BaseUrl, BedrockModel, CallLimits, HttpProviderConfig, ModelName


class Provider(HttpProviderConfig):
    model: ModelName = "a-model"
    base_url: BaseUrl = "http://127.0.0.1:9"
    temperature: float = 0.1


def test_given_a_provider_config_then_the_shared_keys_come_first_and_its_own_after() -> None:
    assert list(Provider.model_fields) == [
        "model",
        "api_key",
        "base_url",
        "timeout",
        "max_retries",
        "total_timeout",
        "temperature",
    ]


def test_given_no_total_timeout_then_the_whole_call_may_take_twice_the_attempt_timeout() -> None:
    policy = CallLimits(timeout=7.5, max_retries=2).retry_policy()

    assert (policy.max_retries, policy.deadline) == (2, 15.0)
    assert CallLimits(timeout=7.5, total_timeout=30).retry_policy().deadline == 30.0


@pytest.mark.parametrize(
    "given",
    [
        {"max_retries": 11},
        {"max_retries": 2.0},  # strict: a whole number
        {"total_timeout": 0},
        {"total_timeout": float("inf")},
        {"api_key": "clé"},  # sent in a header: printable ASCII only
        {"base_url": "ftp://host"},
        {"model": ""},
        {"region": "us-east-1"},  # not a key of an HTTP provider: refused, not ignored
    ],
)
def test_given_a_key_out_of_bounds_when_validated_then_it_is_refused(given: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Provider.model_validate(given)


def test_given_a_client_kind_then_it_is_made_for_the_config_and_its_pace() -> None:
    config = Provider(api_key="k", timeout=3.0)

    assert type(config.client(OpenAIHttp, Pace())) is OpenAIHttp
    assert type(config.client(GeminiHttp, None)) is GeminiHttp


def test_given_a_runtime_client_then_bedrock_uses_it_else_makes_one_in_its_region() -> None:
    given = object()
    model = BedrockModel(model="amazon.nova-lite-v1:0", region="eu-west-1")

    assert model.runtime(given) is given
    made = model.runtime(None)
    assert (made.meta.service_model.service_name, made.meta.region_name) == ("bedrock-runtime", "eu-west-1")
