"""When the LLM path gives up on the LLM: an answer that could not be read even when asked twice (not the JSON
asked for, or cut off), or a call that timed out, leaves the add to the rule-based extractor (statements.py) rather
than failing it; the add says so (services.llm_usage.Fallback). The LLM calls come before the add's first write, so
nothing is half-done when it does.

Only the LLM's misbehaving is a fallback: an embedder's failure, and an LLM that refuses the key, throttles past its
retries or is down (errors a caller or a worker can act on, or retry), still fail the add."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mnemo.errors import ProviderError
from mnemo.services.llm_json import UnreadableReplyError
from mnemo.services.llm_usage import Fallback


class UnusableAnswerError(ProviderError):
    """An LLM step of the add gave no answer to use; `fallback` says why."""

    def __init__(self, cause: ProviderError, fallback: Fallback) -> None:
        super().__init__(cause.message, cause.code)
        self.fallback = fallback


@contextmanager
def asking_the_llm() -> Iterator[None]:
    """Around the add's LLM calls: an answer that cannot be used is an UnusableAnswerError; other errors pass."""
    try:
        yield
    except ProviderError as error:
        fallback = fallback_for(error)
        if fallback is None:
            raise
        raise UnusableAnswerError(error, fallback) from error


def fallback_for(error: ProviderError) -> Fallback | None:
    """The fallback an LLM's error calls for, or None when the error is the add's."""
    if isinstance(error, UnreadableReplyError):
        return Fallback("llm_truncated" if error.truncated else "llm_malformed")
    if error.code == "provider_bad_response":  # a completion without its text
        return Fallback("llm_malformed")
    if error.code == "provider_timeout":
        return Fallback("llm_timeout")
    return None
