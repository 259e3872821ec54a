"""Which LLM errors leave an add to the rule-based extractor (services/memory/add/fallback.py), and why it says."""

from __future__ import annotations

import pytest

from mnemo.errors import ProviderError
from mnemo.services.llm_json import CUT_OFF, NOT_JSON, UnreadableReplyError
from mnemo.services.llm_usage import Fallback
from mnemo.services.memory.add.fallback import UnusableAnswerError, asking_the_llm, fallback_for


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (UnreadableReplyError(NOT_JSON), "llm_malformed"),
        (UnreadableReplyError(CUT_OFF, truncated=True), "llm_truncated"),
        (ProviderError("Provider returned no completion.", "provider_bad_response"), "llm_malformed"),
        (ProviderError("Provider timed out.", "provider_timeout"), "llm_timeout"),
    ],
)
def test_a_model_that_misbehaves_is_a_fallback_that_says_why(error: ProviderError, reason: str) -> None:
    assert fallback_for(error) == Fallback(reason)  # type: ignore[arg-type]


@pytest.mark.parametrize("code", ["provider_auth_failed", "provider_rate_limited", "provider_unavailable", "unknown"])
def test_a_provider_that_refuses_throttles_or_is_down_is_no_fallback(code: str) -> None:
    assert fallback_for(ProviderError("no", code)) is None


def test_around_the_llm_calls_an_unusable_answer_is_raised_as_such_with_its_fallback() -> None:
    with pytest.raises(UnusableAnswerError) as raised, asking_the_llm():
        raise UnreadableReplyError(CUT_OFF, truncated=True)
    assert raised.value.fallback == Fallback("llm_truncated")
    assert raised.value.code == "provider_bad_response" and raised.value.message == CUT_OFF


def test_around_the_llm_calls_other_errors_pass_unchanged() -> None:
    down = ProviderError("down", "provider_unavailable")
    with pytest.raises(ProviderError) as raised, asking_the_llm():
        raise down
    assert raised.value is down


def test_a_fallback_is_said_as_json() -> None:
    assert Fallback("llm_timeout").to_json() == {"reason": "llm_timeout", "extractor": "rules"}
