"""The LLM port: a chat completion that returns text (JSON when asked for)."""

from __future__ import annotations

from typing import Protocol, TypedDict


class ChatMessage(TypedDict):
    role: str
    content: str


class LLM(Protocol):
    @property
    def name(self) -> str: ...

    def complete(self, messages: list[ChatMessage], *, json_mode: bool = False) -> str:
        """The assistant's reply text. Raises ProviderError when the provider fails."""
        ...
