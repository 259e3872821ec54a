"""Secrets on AWS: settings carry SSM parameter NAMES; the values are read (decrypted) once, at cold start."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from moto import mock_aws
from pydantic import SecretStr

from mnemo.adapters.aws.parameters import read_parameters
from mnemo.adapters.registry import validate
from mnemo.composition.secrets import with_secrets
from mnemo.errors import ConfigurationError, ValidationError
from mnemo.settings import Settings
from tests.support import moto_aws


@pytest.fixture
def ssm() -> Iterator[Any]:
    with mock_aws():
        client = moto_aws.client("ssm")
        client.put_parameter(Name="/mnemo/t/jwt", Value="jwt-from-ssm", Type="SecureString")
        client.put_parameter(Name="/mnemo/t/admin", Value="admin-from-ssm", Type="SecureString")
        client.put_parameter(Name="/mnemo/t/llm", Value="sk-from-ssm", Type="SecureString")
        yield client


def test_named_secrets_are_read_into_the_settings(ssm: Any) -> None:
    settings = Settings(
        jwt_secret_parameter="/mnemo/t/jwt",
        admin_api_key_parameter="/mnemo/t/admin",
        llm_provider="openai",
        llm_config={"model": "gpt-4.1-mini"},
        llm_api_key_parameter="/mnemo/t/llm",
    )
    loaded = with_secrets(settings, ssm)
    assert loaded.secret("jwt_secret") == "jwt-from-ssm"
    assert loaded.secret("admin_api_key") == "admin-from-ssm"
    assert loaded.llm_config == {"model": "gpt-4.1-mini", "api_key": "sk-from-ssm"}
    assert settings.secret("jwt_secret") is None  # the original is unchanged
    assert "sk-from-ssm" not in repr(loaded.jwt_secret)


def test_a_secret_given_directly_wins_and_no_names_means_no_call(ssm: Any) -> None:
    direct = Settings(jwt_secret=SecretStr("direct"), jwt_secret_parameter="/mnemo/t/jwt")
    assert with_secrets(direct, ssm).secret("jwt_secret") == "direct"
    nothing = Settings()
    assert with_secrets(nothing, object()) is nothing  # an object without get_parameters: never called


def test_a_missing_parameter_is_named_in_the_error(ssm: Any) -> None:
    with pytest.raises(ConfigurationError, match="/mnemo/t/nope"):
        with_secrets(Settings(jwt_secret_parameter="/mnemo/t/nope", admin_api_key_parameter="/mnemo/t/admin"), ssm)
    names = [f"/mnemo/t/n{i}" for i in range(12)]
    for name in names:
        ssm.put_parameter(Name=name, Value=name.upper(), Type="SecureString")
    assert read_parameters(ssm, names) == {n: n.upper() for n in names}  # more than ten: several calls


def test_the_templates_extra_config_is_merged_over_the_providers_config_with_its_key(
    ssm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMO_LLM_PROVIDER", "azure_openai")
    monkeypatch.setenv("MNEMO_LLM_CONFIG", '{"model": "mini"}')  # LlmModelId: on Azure, the deployment's name
    monkeypatch.setenv("MNEMO_LLM_EXTRA_CONFIG", '{"endpoint": "https://r.openai.azure.com"}')
    monkeypatch.setenv("MNEMO_LLM_API_KEY_PARAMETER", "/mnemo/t/llm")
    loaded = with_secrets(Settings(), ssm)
    llm = loaded.default_provider_config()["llm"]
    assert llm == {
        "provider": "azure_openai",
        "config": {
            "model": "mini",
            "api_key": "sk-from-ssm",
            "endpoint": "https://r.openai.azure.com",
        },
    }
    assert (
        validate("llm", llm["provider"], llm["config"]).model_dump()["deployment"] == "mini"
    )  # as the function takes it
    with pytest.raises(ValidationError, match="on Azure the deployment is the model"):
        validate("llm", "azure_openai", {**llm["config"], "deployment": "other"})
