"""LLM provider `azure_openai`: a chat deployment of Azure OpenAI."""

from __future__ import annotations

from mnemo.adapters.azure_openai import AzureOpenAIAccess, deployment_http
from mnemo.adapters.llms.openai import chat_body, completion_text, completion_usage
from mnemo.adapters.openai_http import DEFAULT_MAX_RETRIES, MaxRetries, Pace, RetryPolicy, TotalTimeout
from mnemo.ports.llm import ChatMessage, Completion


class AzureOpenAILLMConfig(AzureOpenAIAccess):
    temperature: float = 0.1
    max_tokens: int = 2000
    timeout: float = 60.0  # seconds, per attempt
    max_retries: MaxRetries = DEFAULT_MAX_RETRIES  # of a 429, 500, 502, 503, 504, dropped connection or timeout
    total_timeout: TotalTimeout = None  # seconds for the whole call, retries included; None: 2 × timeout


class AzureOpenAILLM:
    def __init__(self, config: AzureOpenAILLMConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"azure_openai/{config.deployment}"
        retry = RetryPolicy.for_timeout(config.timeout, config.max_retries, config.total_timeout)
        self._http = deployment_http(config, config.timeout, retry, pace)

    def complete(self, messages: list[ChatMessage], *, json_mode: bool = False) -> Completion:
        body = chat_body(messages, self.config.temperature, self.config.max_tokens, json_mode=json_mode)
        payload = self._http.post("chat/completions", body)
        return Completion(completion_text(payload), completion_usage(payload))
