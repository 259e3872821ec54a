"""The LLM port: a chat completion that returns text (JSON when asked for) and what the call used."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, TypedDict

from mnemo.domain.llm_usage import LLMUsage


class ChatMessage(TypedDict):
    role: str
    content: str


@dataclass(frozen=True, slots=True)
class Completion:
    """The assistant's reply text, and the usage of the one call that made it (its tokens as the provider
    counted them: zero when it reported none)."""

    text: str
    usage: LLMUsage


class LLM(Protocol):
    @property
    def name(self) -> str: ...

    def complete(self, messages: list[ChatMessage], *, json_mode: bool = False) -> Completion:
        """The assistant's reply and the call's usage. Raises ProviderError when the provider fails."""
        ...
