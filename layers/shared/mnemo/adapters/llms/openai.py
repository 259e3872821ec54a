"""LLM provider `openai`: any OpenAI-compatible chat-completions endpoint."""

from __future__ import annotations

from typing import Any

from mnemo.adapters.openai_http import CONTENT_FILTER_ADVICE, DEFAULT_BASE_URL, OpenAIHttp, Pace
from mnemo.adapters.provider_config import BaseUrl, HttpProviderConfig, ModelName
from mnemo.domain.llm_usage import LLMUsage
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage, Completion


class OpenAILLMConfig(HttpProviderConfig):
    model: ModelName = "gpt-4.1-mini"
    base_url: BaseUrl = DEFAULT_BASE_URL
    temperature: float = 0.1
    max_tokens: int = 2000


class OpenAILLM:
    def __init__(self, config: OpenAILLMConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"openai/{config.model}"
        self._http = config.client(OpenAIHttp, pace)

    def complete(self, messages: list[ChatMessage], *, json_mode: bool = False) -> Completion:
        body: dict[str, object] = {
            "model": self.config.model,
            **chat_body(messages, self.config.temperature, self.config.max_tokens, json_mode=json_mode),
        }
        payload = self._http.post("chat/completions", body)
        return Completion(completion_text(payload), completion_usage(payload), cut_off(payload))


def chat_body(
    messages: list[ChatMessage], temperature: float, max_tokens: int, *, json_mode: bool
) -> dict[str, object]:
    """An OpenAI chat-completions request body (without `model`, which not every endpoint wants)."""
    body: dict[str, object] = {"messages": messages, "temperature": temperature, "max_tokens": max_tokens}
    if json_mode:
        body["response_format"] = {"type": "json_object"}
    return body


def cut_off(payload: dict[str, Any]) -> bool:
    """Whether the reply stopped at `max_tokens` (finish_reason "length"): its text is cut off."""
    choices = payload.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    return isinstance(choice, dict) and choice.get("finish_reason") == "length"


def completion_text(payload: dict[str, Any]) -> str:
    """The text of a chat-completions reply, or a ProviderError (a completion the content filter withheld:
    `provider_bad_request`; anything else missing: `provider_bad_response`)."""
    try:
        choice = payload["choices"][0]
        filtered = isinstance(choice, dict) and choice.get("finish_reason") == "content_filter"
        content = None if filtered else choice["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ProviderError("Provider returned no completion.", "provider_bad_response") from exc
    if filtered:
        raise ProviderError(
            f"Provider's content filter refused the completion. {CONTENT_FILTER_ADVICE}", "provider_bad_request"
        )
    if not isinstance(content, str):
        raise ProviderError("Provider returned no completion text.", "provider_bad_response")
    return content


def completion_usage(payload: dict[str, Any]) -> LLMUsage:
    """The call's usage from a chat-completions reply's `usage.prompt_tokens` and `usage.completion_tokens`."""
    usage = payload.get("usage")
    counts = usage if isinstance(usage, dict) else {}
    return LLMUsage.of_call(counts.get("prompt_tokens"), counts.get("completion_tokens"))
