"""LLM provider `azure_openai`: a chat deployment of Azure OpenAI."""

from __future__ import annotations

from mnemo.adapters.azure_openai import AzureOpenAIConfig
from mnemo.adapters.llms.openai import chat_body, completion_text, completion_usage, cut_off, response_format
from mnemo.adapters.openai_http import Pace
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema


class AzureOpenAILLMConfig(AzureOpenAIConfig):
    temperature: float = 0.1
    max_tokens: int = 2000


class AzureOpenAILLM:
    def __init__(self, config: AzureOpenAILLMConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"azure_openai/{config.deployment}"
        self._http = config.deployment_http(pace)

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        """A deployment is asked for `json_object` (a schema is not sent: not every API version takes one)."""
        asked = response_format("json_object", None) if json_mode else None
        body = chat_body(messages, self.config.temperature, self.config.max_tokens, response=asked)
        payload = self._http.post("chat/completions", body)
        return Completion(completion_text(payload), completion_usage(payload), cut_off(payload))
