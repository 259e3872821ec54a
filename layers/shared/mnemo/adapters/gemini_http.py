"""A small client for Google's Gemini REST API (generativelanguage.googleapis.com, v1beta) over httpx.

It is the OpenAI-compatible client of `openai_http` with Gemini's authentication (the `x-goog-api-key`
header) and error bodies (`{"error": {"code", "message", "status"}}`): the same timeouts, the same retries of a
429, 500, 502, 503, 504, a failed or dropped connection and a timeout (honouring Retry-After), the same
deadline and the same `ProviderError` codes. Gemini answers an invalid API key with a 400 whose error names
`API_KEY_INVALID`: that is `provider_auth_failed`, as a 401 or 403 is.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx

from mnemo.adapters.openai_http import OpenAIHttp, _Failure, _failure_for_status

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
_MAX_DETAIL = 300  # characters of the provider's own error message kept in ours


class GeminiHttp(OpenAIHttp):
    def _credentials(self, api_key: str) -> dict[str, str]:
        return {"x-goog-api-key": api_key}

    def model_call(self, model: str, method: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST {base_url}/v1beta/models/{model}:{method}, e.g. `generateContent`."""
        return self.post(f"{API_VERSION}/models/{model}:{method}", body)

    def _failure_for(self, response: httpx.Response) -> _Failure:
        failure = _failure_for_status(response.status_code)
        status, message = _error_of(response)
        if response.status_code == 400 and _is_invalid_key(message, response):
            what = f"Provider rejected the API key ({response.status_code})"
            failure = _Failure("provider_auth_failed", what, "Check the provider API key.")
        if message:
            detail = message if len(message) <= _MAX_DETAIL else message[:_MAX_DETAIL] + "…"
            failure = replace(failure, what=f"{failure.what}: {status + ': ' if status else ''}{detail}")
        return failure


def _error_of(response: httpx.Response) -> tuple[str, str]:
    """Gemini's error `status` (e.g. RESOURCE_EXHAUSTED) and `message`, empty when the body has none."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return "", ""
    if not isinstance(error, dict):
        return "", ""
    status, message = error.get("status"), error.get("message")
    return (
        status if isinstance(status, str) else "",
        " ".join(message.split()).rstrip(".") if isinstance(message, str) else "",
    )


def _is_invalid_key(message: str, response: httpx.Response) -> bool:
    return "API_KEY_INVALID" in response.text or "api key not valid" in message.lower()
