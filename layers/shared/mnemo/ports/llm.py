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
    """The assistant's reply text, the usage of the one call that made it (its tokens as the provider counted
    them: zero when it reported none), and whether the provider cut the reply off at its output limit."""

    text: str
    usage: LLMUsage
    truncated: bool = False  # the provider stopped at its output limit: the text is cut off


class LLM(Protocol):
    @property
    def name(self) -> str: ...

    def complete(self, messages: list[ChatMessage], *, json_mode: bool = False) -> Completion:
        """The assistant's reply and the call's usage. Raises ProviderError when the provider fails."""
        ...
