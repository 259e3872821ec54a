"""LLM provider `ollama`: Ollama's native `/api/chat` endpoint (not its OpenAI-compatible one).

The HTTP client (timeouts, retries of 429/5xx and dropped connections honouring Retry-After, the deadline, the
error codes) is the `openai` providers' own, see mnemo.adapters.openai_http.
"""

from __future__ import annotations

from pydantic import Field

from mnemo.adapters.openai_http import OpenAIHttp, Pace
from mnemo.adapters.provider_config import DEFAULT_OLLAMA_BASE_URL, BaseUrl, HttpProviderConfig, ModelName
from mnemo.domain.llm_usage import LLMUsage
from mnemo.errors import ProviderError
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema


class OllamaLLMConfig(HttpProviderConfig):
    """The API key, when given, is sent as `Authorization: Bearer …`, for a deployment behind a proxy."""

    model: ModelName = "llama3.2"
    base_url: BaseUrl = DEFAULT_OLLAMA_BASE_URL
    timeout: float = 120.0  # seconds, per attempt (a local model may be loaded on the first call)
    temperature: float | None = 0.1  # None: the model's own default
    max_tokens: int | None = Field(default=2000, gt=0)  # sent as options.num_predict; None: the model's default


class OllamaLLM:
    def __init__(self, config: OllamaLLMConfig, *, pace: Pace | None = None) -> None:
        self.config = config
        self.name = f"ollama/{config.model}"
        self._http = config.client(OpenAIHttp, pace)

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        """With `json_mode`, a JSON object; `schema` is not sent (this adapter asks for JSON its own way), and the
        caller validates the reply."""
        options: dict[str, object] = {}
        if self.config.temperature is not None:
            options["temperature"] = self.config.temperature
        if self.config.max_tokens is not None:
            options["num_predict"] = self.config.max_tokens
        body: dict[str, object] = {
            "model": self.config.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "stream": False,
            "options": options,
        }
        if json_mode:
            body["format"] = "json"
        payload = self._http.post("api/chat", body)
        error = payload.get("error")
        if isinstance(error, str) and "message" not in payload:
            raise ProviderError(f"Provider returned an error: {error[:200]}", "provider_bad_response")
        try:
            content = payload["message"]["content"]
        except (KeyError, TypeError) as exc:
            raise ProviderError("Provider returned no completion.", "provider_bad_response") from exc
        if not isinstance(content, str):
            raise ProviderError("Provider returned no completion text.", "provider_bad_response")
        # Ollama counts the prompt's tokens (`prompt_eval_count`, left out when the whole prompt was cached) and the
        # reply's (`eval_count`).
        usage = LLMUsage.of_call(payload.get("prompt_eval_count"), payload.get("eval_count"))
        return Completion(content, usage, payload.get("done_reason") == "length")
