"""LLM provider `openai`: any OpenAI-compatible chat-completions endpoint."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from mnemo.adapters.openai_http import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_RETRIES,
    ApiKey,
    BaseUrl,
    MaxRetries,
    ModelName,
    OpenAIHttp,
    Pace,
    RetryPolicy,
    TotalTimeout,
)
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage


class OpenAILLMConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: ModelName = "gpt-4.1-mini"
    api_key: ApiKey | None = None
    base_url: BaseUrl = DEFAULT_BASE_URL
    temperature: float = 0.1
    max_tokens: int = 2000
    timeout: float = 60.0  # seconds, per attempt
    max_retries: MaxRetries = DEFAULT_MAX_RETRIES  # of a 429, 500, 502, 503, 504, dropped connection or timeout
    total_timeout: TotalTimeout = None  # seconds for the whole call, retries included; None: 2 × timeout


class OpenAILLM:
    def __init__(self, config: OpenAILLMConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"openai/{config.model}"
        retry = RetryPolicy.for_timeout(config.timeout, config.max_retries, config.total_timeout)
        self._http = OpenAIHttp(config.base_url, config.api_key, config.timeout, retry, pace)

    def complete(self, messages: list[ChatMessage], *, json_mode: bool = False) -> str:
        body: dict[str, object] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        payload = self._http.post("chat/completions", body)
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderError("Provider returned no completion.", "provider_bad_response") from exc
        if not isinstance(content, str):
            raise ProviderError("Provider returned no completion text.", "provider_bad_response")
        return content
