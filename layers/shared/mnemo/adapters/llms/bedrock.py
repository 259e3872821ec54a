"""LLM provider `bedrock`: Amazon Bedrock's Converse API through boto3."""

from __future__ import annotations

import functools
from typing import Any

from mnemo.adapters.bedrock_errors import boto_errors, provider_error
from mnemo.adapters.provider_config import BedrockModel
from mnemo.domain.llm_usage import LLMUsage
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema

JSON_ONLY = "Reply with one JSON object and nothing else."


class BedrockLLMConfig(BedrockModel):
    model: str = "amazon.nova-lite-v1:0"
    temperature: float = 0.1
    max_tokens: int = 2000


class BedrockLLM:
    def __init__(self, config: BedrockLLMConfig, client: Any | None = None) -> None:
        self.config = config
        self.name = f"bedrock/{config.model}"
        self._given = client

    @functools.cached_property
    def _client(self) -> Any:
        """The bedrock-runtime client, made on the first call: a process that never calls the model (a function
        serving only accounts or keys) never builds it."""
        return self.config.runtime(self._given)

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        """With `json_mode`, a JSON object; `schema` is not sent (this adapter asks for JSON its own way), and the
        caller validates the reply."""
        system = [{"text": m["content"]} for m in messages if m["role"] == "system"]
        if json_mode:
            system.append({"text": JSON_ONLY})
        turns = [
            {"role": "assistant" if m["role"] == "assistant" else "user", "content": [{"text": m["content"]}]}
            for m in messages
            if m["role"] != "system"
        ]
        request: dict[str, Any] = {
            "modelId": self.config.model,
            "messages": turns,
            "inferenceConfig": {"temperature": self.config.temperature, "maxTokens": self.config.max_tokens},
        }
        if system:
            request["system"] = system
        try:
            response = self._client.converse(**request)
        except boto_errors() as exc:
            raise provider_error(exc) from exc
        try:
            parts = response["output"]["message"]["content"]
        except (KeyError, TypeError) as exc:
            raise ProviderError("Amazon Bedrock returned no message.", "provider_bad_response") from exc
        text = "".join(part.get("text", "") for part in parts)
        return Completion(text, converse_usage(response), response.get("stopReason") == "max_tokens")


def converse_usage(response: Any) -> LLMUsage:
    """The call's usage from a Converse reply's `usage.inputTokens` and `usage.outputTokens`."""
    usage = response.get("usage") if isinstance(response, dict) else None
    counts = usage if isinstance(usage, dict) else {}
    return LLMUsage.of_call(counts.get("inputTokens"), counts.get("outputTokens"))
