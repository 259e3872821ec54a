"""The LLM port: a chat completion that returns text (JSON when asked for) and what the call used."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict

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


@dataclass(frozen=True, slots=True)
class JsonSchema:
    """The JSON Schema a JSON reply should fit, for a provider that can constrain its output to one (`name`: what
    the schema is called in the request, letters, digits, `_` and `-`). Strict: every object lists all its
    properties as required and allows no others, as constrained decoding asks."""

    name: str
    schema: Mapping[str, Any] = field(hash=False)


class LLM(Protocol):
    @property
    def name(self) -> str: ...

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        """The assistant's reply and the call's usage. With `json_mode`, a JSON object; with `schema` too, one that a
        provider configured to constrain its output to a schema fits (others ignore it: the caller validates the
        reply all the same). Raises ProviderError when the provider fails."""
        ...
