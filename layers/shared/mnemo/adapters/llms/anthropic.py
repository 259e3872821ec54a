"""LLM provider `anthropic`: Anthropic's Messages API (`POST {base_url}/v1/messages`) over httpx, no SDK.

It reuses the OpenAI-compatible HTTP client (`openai_http`): the same per-attempt timeout, total deadline,
retries with backoff and full jitter or after `retry-after`, and mapping of failures to ProviderError codes;
it authenticates with `x-api-key` and `anthropic-version` instead of a bearer token, and also retries a 529
(Anthropic's `overloaded_error`).

The port's system-role messages become the top-level `system` field (joined by blank lines); the other
messages keep their order, consecutive ones of one role joined into one turn. The Messages API has no JSON
mode: `json_mode` appends an instruction to the system prompt to answer with one JSON object only, and a reply
wrapped in a Markdown code fence anyway is unwrapped.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from mnemo.adapters.openai_http import RETRIED_STATUSES, OpenAIHttp, Pace
from mnemo.adapters.provider_config import BaseUrl, HttpProviderConfig, ModelName
from mnemo.domain.llm_usage import LLMUsage
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema

DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
OVERLOADED = 529  # Anthropic's `overloaded_error`: transient, retried like a 503
ANTHROPIC_RETRIED_STATUSES = RETRIED_STATUSES | {OVERLOADED}
JSON_INSTRUCTION = (
    "Answer with one JSON object only: no text before or after it, no Markdown code fence, no explanation."
)
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n(?P<body>.*?)\n?```$", re.DOTALL)


class AnthropicLLMConfig(HttpProviderConfig):
    """The API key is sent as `x-api-key` (none: no such header, e.g. behind a proxy that adds it); a 529 is
    retried too."""

    model: ModelName = "claude-3-5-haiku-latest"
    base_url: BaseUrl = DEFAULT_BASE_URL  # without `/v1`: requests go to {base_url}/v1/messages
    timeout: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 60.0  # seconds, per attempt
    temperature: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 0.1
    max_tokens: Annotated[int, Field(ge=1, le=1_000_000)] = 2000


class AnthropicLLM:
    def __init__(self, config: AnthropicLLMConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"anthropic/{config.model}"
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if config.api_key:
            headers["x-api-key"] = config.api_key
        self._http = OpenAIHttp(
            config.base_url,
            None,  # no `Authorization: Bearer`: the key goes in `x-api-key`
            config.timeout,
            config.retry_policy(),
            pace,
            headers=headers,
            retried_statuses=ANTHROPIC_RETRIED_STATUSES,
        )

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        """With `json_mode`, a JSON object; `schema` is not sent (this adapter asks for JSON its own way), and the
        caller validates the reply."""
        body = self.request_body(messages, json_mode=json_mode)
        payload = self._http.post("v1/messages", body)
        text = _reply_text(payload)
        cut = payload.get("stop_reason") == "max_tokens"
        return Completion(_unfenced(text) if json_mode else text, reply_usage(payload), cut)

    def request_body(self, messages: list[ChatMessage], *, json_mode: bool = False) -> dict[str, Any]:
        """The Messages API request for these chat messages."""
        system = [m["content"] for m in messages if m["role"] == "system"]
        if json_mode:
            system.append(JSON_INSTRUCTION)
        body: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "messages": _turns(messages),
            "temperature": self.config.temperature,
        }
        if system:
            body["system"] = "\n\n".join(system)
        return body


def _turns(messages: list[ChatMessage]) -> list[dict[str, str]]:
    """The non-system messages as Messages API turns: `assistant` stays, any other role is `user`, and
    consecutive messages of one role are joined into one turn."""
    turns: list[dict[str, str]] = []
    for message in messages:
        if message["role"] == "system":
            continue
        role = "assistant" if message["role"] == "assistant" else "user"
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n\n" + message["content"]
        else:
            turns.append({"role": role, "content": message["content"]})
    return turns


def _reply_text(payload: dict[str, Any]) -> str:
    """The text of the reply's `text` content blocks, joined; else a ProviderError (provider_bad_response)."""
    content = payload.get("content")
    if not isinstance(content, list):
        raise ProviderError("Provider returned no completion.", "provider_bad_response")
    blocks = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    texts = [t for t in blocks if isinstance(t, str)]
    if not texts or len(texts) != len(blocks):
        raise ProviderError("Provider returned no completion text.", "provider_bad_response")
    return "".join(texts)


def _unfenced(text: str) -> str:
    """A JSON reply without the Markdown code fence a model may wrap it in anyway."""
    match = _FENCE.match(text.strip())
    return match.group("body").strip() if match else text


def reply_usage(payload: dict[str, Any]) -> LLMUsage:
    """The call's usage from a Messages API reply: `usage.input_tokens` (with the prompt-cache reads and writes,
    `cache_read_input_tokens` and `cache_creation_input_tokens`, which Anthropic counts apart) and
    `usage.output_tokens`."""
    usage = payload.get("usage")
    counts = usage if isinstance(usage, dict) else {}
    parts = [counts.get(k) for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")]
    whole = [p for p in parts if isinstance(p, int) and not isinstance(p, bool) and p >= 0]
    return LLMUsage.of_call(sum(whole) if whole else None, counts.get("output_tokens"))
