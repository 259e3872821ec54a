"""A small client for OpenAI-compatible HTTP APIs (OpenAI, vLLM, Ollama, LM Studio, …) over httpx."""

from __future__ import annotations

from typing import Any

import httpx

from mnemo.errors import ProviderError

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIHttp:
    def __init__(self, base_url: str, api_key: str | None, timeout: float) -> None:
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._client.post(path, json=body)
        except httpx.TimeoutException as exc:
            raise ProviderError("Provider timed out. Retry shortly.", "provider_timeout") from exc
        except httpx.HTTPError as exc:
            raise ProviderError("Provider is unreachable or returned a server error.", "provider_unavailable") from exc
        if response.status_code >= 400:
            raise provider_error_for_status(response.status_code)
        try:
            payload = response.json()
        except ValueError as exc:
            raise ProviderError("Provider returned a body that is not JSON.", "provider_bad_response") from exc
        if not isinstance(payload, dict):
            raise ProviderError("Provider returned an unexpected body.", "provider_bad_response")
        return payload


def provider_error_for_status(status: int) -> ProviderError:
    if status in (401, 403):
        return ProviderError(
            "Provider rejected the request (authentication). Check the provider API key.",
            "provider_auth_failed",
        )
    if status == 429:
        return ProviderError("Provider rate limit hit. Retry shortly.", "provider_rate_limited")
    if status == 404:
        return ProviderError("Provider endpoint or model not found: check base_url and model.", "provider_bad_request")
    if status >= 500:
        return ProviderError("Provider is unreachable or returned a server error.", "provider_unavailable")
    return ProviderError("Provider rejected the request as malformed.", "provider_bad_request")
