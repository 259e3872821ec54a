"""LLM provider `openai`: any OpenAI-compatible chat-completions endpoint.

How a JSON reply is asked for is the config's `json_mode`, since endpoints differ in what they accept: OpenAI's own
API constrains the output to a JSON Schema (`json_schema`, its default there), a llama.cpp-style local server takes
the schema beside `json_object` (`json_object_schema`), most others know only `json_object` (the default for any
other `base_url`), and some reject `response_format` altogether (`none`). A call that names no schema falls back to
`json_object` (or nothing, with `none`)."""

from __future__ import annotations

from typing import Any, Literal

from mnemo.adapters.openai_http import CONTENT_FILTER_ADVICE, DEFAULT_BASE_URL, OpenAIHttp, Pace
from mnemo.adapters.provider_config import BaseUrl, HttpProviderConfig, ModelName
from mnemo.domain.llm_usage import LLMUsage
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema

JsonMode = Literal["json_schema", "json_object_schema", "json_object", "none"]


class OpenAILLMConfig(HttpProviderConfig):
    model: ModelName = "gpt-4.1-mini"
    base_url: BaseUrl = DEFAULT_BASE_URL
    temperature: float = 0.1
    max_tokens: int = 2000
    json_mode: JsonMode | None = None  # None: `json_schema` at OpenAI's own base URL, `json_object` elsewhere

    def json_format(self) -> JsonMode:
        """How this endpoint is asked for JSON (`json_mode`, or its default for the base URL)."""
        if self.json_mode is not None:
            return self.json_mode
        return "json_schema" if self.base_url.rstrip("/") == DEFAULT_BASE_URL.rstrip("/") else "json_object"


class OpenAILLM:
    def __init__(self, config: OpenAILLMConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"openai/{config.model}"
        self._http = config.client(OpenAIHttp, pace)

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        asked = response_format(self.config.json_format(), schema) if json_mode else None
        body: dict[str, object] = {
            "model": self.config.model,
            **chat_body(messages, self.config.temperature, self.config.max_tokens, response=asked),
        }
        payload = self._http.post("chat/completions", body)
        return Completion(completion_text(payload), completion_usage(payload), cut_off(payload))


def chat_body(
    messages: list[ChatMessage],
    temperature: float,
    max_tokens: int,
    *,
    json_mode: bool = False,
    response: dict[str, Any] | None = None,
) -> dict[str, object]:
    """An OpenAI chat-completions request body (without `model`, which not every endpoint wants); `response`: its
    `response_format` (None: `json_object` with `json_mode`, else none)."""
    body: dict[str, object] = {"messages": messages, "temperature": temperature, "max_tokens": max_tokens}
    if response is None and json_mode:
        response = {"type": "json_object"}
    if response is not None:
        body["response_format"] = response
    return body


def response_format(mode: JsonMode, schema: JsonSchema | None) -> dict[str, Any] | None:
    """The `response_format` that asks for a JSON reply in `mode`, fitting `schema` where the mode can say one."""
    if mode == "none":
        return None
    if schema is not None and mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": schema.name, "schema": schema.schema, "strict": True}}
    if schema is not None and mode == "json_object_schema":
        return {"type": "json_object", "schema": schema.schema}
    return {"type": "json_object"}


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
