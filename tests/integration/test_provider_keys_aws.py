"""Provider keys at rest on the AWS backend (under moto): a key configured is in no item of any DynamoDB table and
reaches the provider whole, sealed with the key the SSM parameter MNEMO_CONFIG_ENCRYPTION_KEY_PARAMETER names; a
deployment without that parameter refuses a provider key (a ConfigurationError, 400) and stores nothing of it,
while a change holding no key still goes through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.composition.container import build_container
from mnemo.errors import ConfigurationError
from mnemo.settings import Settings
from tests.support.aws_backend import InProcessIndexes, aws_backend
from tests.support.erasure_scan import Sentinel, items_holding
from tests.support.lambda_aws import BedrockAsLocalCatalog


def llm(api_key: str) -> dict[str, Any]:
    config = {"base_url": "http://127.0.0.1:9/v1", "api_key": api_key, "model": "m"}
    return {"llm": {"provider": "openai", "config": config}}


def test_a_configured_key_is_in_no_item_and_reaches_the_provider(embedder: LocalMiniLMEmbedder, tmp_path: Path) -> None:
    key = Sentinel.new()
    with aws_backend(embedder, tmp_path) as container:
        # When a key is configured
        container.configuration.update(llm(key.word))
        # Then no item of any table holds it, the configuration in effect has it whole, and its view redacts it
        assert items_holding(key.needle) == []
        assert container.configuration.current()["llm"]["config"]["api_key"] == key.word
        assert container.configuration.redacted()["llm"]["config"]["api_key"] == "[redacted]"


def test_without_the_key_parameter_a_provider_key_is_refused_and_nothing_stored(
    embedder: LocalMiniLMEmbedder, tmp_path: Path
) -> None:
    key = Sentinel.new()
    with aws_backend(embedder, tmp_path / "served"):
        # Given a deployment whose functions name no encryption key parameter
        settings = Settings().model_copy(update={"config_encryption_key_parameter": None})
        indexes = InProcessIndexes(tmp_path / "other", embedder.dimension)
        container = build_container(
            settings,
            BedrockAsLocalCatalog(embedder),
            index=indexes.named("main"),
            namespace_index=indexes.named,
        )
        try:
            # When a key is configured, then it is refused, saying what to set, and no item holds it
            with pytest.raises(ConfigurationError, match="MNEMO_CONFIG_ENCRYPTION_KEY_PARAMETER"):
                container.configuration.update(llm(key.word))
            assert items_holding(key.needle) == []
            assert container.configuration.current()["llm"] is None
            # And a change holding no key goes through
            container.configuration.update({"custom_instructions": "Be brief."})
            assert container.configuration.current()["custom_instructions"] == "Be brief."
        finally:
            container.close()
            indexes.close()
