"""The secrets of the provider configuration (mnemo.services.config_secrets): which fields are secrets, how they are
shown, and that only they are sealed and opened, a value stored in clear read as it is."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo.services.config_secrets import REDACTED, is_secret_name, open_secrets, redact, seal_secrets


class ReversingBox:
    """A stand-in SecretBox: seals by reversing behind a prefix (the real one is tested on its own)."""

    def seal(self, plaintext: str) -> str:
        return "enc:t:" + plaintext[::-1]

    def open(self, sealed: str) -> str:
        return sealed[len("enc:t:") :][::-1]

    def sealed(self, value: str) -> bool:
        return value.startswith("enc:")


def config() -> dict[str, Any]:
    return {
        "version": "v1.1",
        "llm": {
            "provider": "openai",
            "config": {
                "model": "gpt-4.1-mini",
                "api_key": "sk-llm",
                "max_tokens": 100,
                "headers": {"Authorization": "Bearer xyz"},
            },
        },
        "embedder": {"provider": "azure_openai", "config": {"azure_ad_token": "ad", "deployment_key": "dk"}},
        "custom_instructions": "api_key: not a field, a sentence",
    }


@pytest.mark.parametrize(
    "name", ["api_key", "API_KEY", "password", "secret", "token", "client_secret", "deployment_key", "refresh_token"]
)
def test_names_like_secrets_are_secrets(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["model", "max_tokens", "base_url", "keyword", "provider", "tokenizer"])
def test_other_names_are_not(name: str) -> None:
    assert not is_secret_name(name)


def test_every_secret_is_sealed_and_nothing_else() -> None:
    sealed = seal_secrets(config(), ReversingBox())
    llm = sealed["llm"]["config"]
    assert llm["api_key"] == "enc:t:" + "sk-llm"[::-1]
    assert llm["headers"]["Authorization"] == "enc:t:" + "Bearer xyz"[::-1]
    assert sealed["embedder"]["config"] == {"azure_ad_token": "enc:t:da", "deployment_key": "enc:t:kd"}
    assert (llm["model"], llm["max_tokens"]) == ("gpt-4.1-mini", 100)
    assert sealed["custom_instructions"] == config()["custom_instructions"]


def test_a_sealed_configuration_opens_to_the_one_given() -> None:
    box = ReversingBox()
    assert open_secrets(seal_secrets(config(), box), box) == config()


def test_a_given_value_that_looks_sealed_is_sealed_too_and_read_back_as_given() -> None:
    box = ReversingBox()
    given = {"llm": {"provider": "openai", "config": {"api_key": "enc:v1:not-really"}}}
    assert open_secrets(seal_secrets(given, box), box) == given


def test_a_secret_stored_in_clear_is_read_as_it_is() -> None:
    assert open_secrets(config(), ReversingBox()) == config()


def test_an_empty_secret_or_a_null_llm_is_left_alone() -> None:
    given = {"llm": None, "embedder": {"provider": "x", "config": {"api_key": ""}}}
    assert seal_secrets(given, ReversingBox()) == given


def test_redaction_hides_every_secret_that_holds_something() -> None:
    shown = redact(config())
    assert shown["llm"]["config"]["api_key"] == REDACTED
    assert shown["llm"]["config"]["headers"]["Authorization"] == REDACTED
    assert shown["embedder"]["config"] == {"azure_ad_token": REDACTED, "deployment_key": REDACTED}
    assert shown["llm"]["config"]["max_tokens"] == 100
