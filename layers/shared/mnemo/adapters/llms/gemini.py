"""LLM provider `gemini`: Google's Gemini API (`models/{model}:generateContent`), without an SDK."""

from __future__ import annotations

from typing import Any

from mnemo.adapters.gemini_http import DEFAULT_BASE_URL, GeminiHttp
from mnemo.adapters.openai_http import Pace
from mnemo.adapters.provider_config import BaseUrl, HttpProviderConfig, ModelName
from mnemo.domain.llm_usage import LLMUsage
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema

# The finish reasons of a candidate Gemini withheld for its content (its text, if any, is not the answer).
BLOCKED_FINISH_REASONS = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"}
)


class GeminiLLMConfig(HttpProviderConfig):
    """The API key is sent as `x-goog-api-key`."""

    model: ModelName = "gemini-2.0-flash"
    base_url: BaseUrl = DEFAULT_BASE_URL
    temperature: float = 0.1
    max_tokens: int = 2000  # generationConfig.maxOutputTokens


class GeminiLLM:
    def __init__(self, config: GeminiLLMConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"gemini/{config.model}"
        self._http = config.client(GeminiHttp, pace)

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        """With `json_mode`, a JSON object; `schema` is not sent (this adapter asks for JSON its own way), and the
        caller validates the reply."""
        payload = self._http.model_call(self.config.model, "generateContent", self.request(messages, json_mode))
        candidates = payload.get("candidates")
        first = candidates[0] if isinstance(candidates, list) and candidates else None
        cut = isinstance(first, dict) and first.get("finishReason") == "MAX_TOKENS"
        return Completion(reply_text(payload), reply_usage(payload), cut)

    def request(self, messages: list[ChatMessage], json_mode: bool) -> dict[str, Any]:
        """The generateContent body: system messages as `systemInstruction`, the others as `contents`."""
        system = [{"text": m["content"]} for m in messages if m["role"] == "system"]
        contents: list[dict[str, Any]] = []
        for message in messages:
            if message["role"] == "system":
                continue
            role = "model" if message["role"] in ("assistant", "model") else "user"
            if contents and contents[-1]["role"] == role:  # Gemini wants turns that alternate
                contents[-1]["parts"].append({"text": message["content"]})
            else:
                contents.append({"role": role, "parts": [{"text": message["content"]}]})
        generation: dict[str, Any] = {
            "temperature": self.config.temperature,
            "maxOutputTokens": self.config.max_tokens,
        }
        if json_mode:
            generation["responseMimeType"] = "application/json"
        body: dict[str, Any] = {"contents": contents, "generationConfig": generation}
        if system:
            body["systemInstruction"] = {"parts": system}
        return body


def reply_text(payload: dict[str, Any]) -> str:
    """The first candidate's text; a prompt or answer blocked for its content is provider_bad_request."""
    feedback = payload.get("promptFeedback")
    blocked = feedback.get("blockReason") if isinstance(feedback, dict) else None
    if blocked:
        raise ProviderError(
            f"Gemini blocked the prompt ({blocked}): the request was refused for its content.",
            "provider_bad_request",
        )
    try:
        candidate = payload["candidates"][0]
    except (KeyError, IndexError, TypeError) as exc:
        raise ProviderError("Provider returned no completion.", "provider_bad_response") from exc
    if not isinstance(candidate, dict):
        raise ProviderError("Provider returned no completion.", "provider_bad_response")
    reason = candidate.get("finishReason")
    if reason in BLOCKED_FINISH_REASONS:
        raise ProviderError(
            f"Gemini withheld the answer (finishReason {reason}): it was blocked for its content.",
            "provider_bad_request",
        )
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        raise ProviderError("Provider returned no completion text.", "provider_bad_response")
    # The answer's text parts, without a thinking model's thoughts.
    texts = [
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    ]
    if not texts:
        raise ProviderError("Provider returned no completion text.", "provider_bad_response")
    return "".join(texts)


def reply_usage(payload: dict[str, Any]) -> LLMUsage:
    """The call's usage from `usageMetadata`: `promptTokenCount` in, and out `candidatesTokenCount` plus a thinking
    model's `thoughtsTokenCount` (billed as output)."""
    metadata = payload.get("usageMetadata")
    counts = metadata if isinstance(metadata, dict) else {}
    parts = [counts.get(k) for k in ("candidatesTokenCount", "thoughtsTokenCount")]
    whole = [p for p in parts if isinstance(p, int) and not isinstance(p, bool) and p >= 0]
    return LLMUsage.of_call(counts.get("promptTokenCount"), sum(whole) if whole else None)
