"""A loopback HTTP server that speaks Anthropic's Messages API, for testing the real httpx client code.

- `POST /v1/messages` (any path ending in `/messages`) answers scripted replies in order: strings, callables
  that receive the request's JSON body and return the reply text, or `HTTPFailure(status, headers)` to fail
  that call. The response has the real Messages API shape (`content` blocks, `stop_reason`, `usage`); an error
  has Anthropic's shape, `{"type": "error", "error": {"type": …, "message": …}}`.
- Every request is recorded (path, lower-cased headers, JSON body) for assertions.
- `fail_next(status, headers=...)` makes the next call answer an HTTP error (with these headers, e.g.
  `{"retry-after": "2"}`); calling it again scripts the call after, and so on. `respond_raw_next(...)` sends
  any body.

Usage::

    with AnthropicServer() as server:
        server.reply('{"facts": []}')
        llm = AnthropicLLM(AnthropicLLMConfig(base_url=server.base_url, api_key="sk-ant-test"))
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.loopback import HTTPFailure, LoopbackServer, RawResponse, RecordedRequest, Reply

__all__ = ["AnthropicServer", "HTTPFailure", "RecordedRequest", "Reply", "error_response"]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


class AnthropicServer(LoopbackServer):
    """A scripted Messages API endpoint on 127.0.0.1, on a free port, served from a background thread."""

    name = "anthropic-loopback"

    @property
    def base_url(self) -> str:
        """What a client's `base_url` should be: `http://127.0.0.1:<port>` (the client adds `/v1/messages`)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def message_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/messages")]

    # ---- serving ------------------------------------------------------------------------------------

    def _route(self, command: str, path: str, body: Any) -> RawResponse:
        if command == "POST" and path.endswith("/messages"):
            return self._messages(body)
        return error_response(404, f"no route {command} {path}")

    def _error_response(self, status: int, message: str) -> RawResponse:
        return error_response(status, message)

    def _messages(self, body: Any) -> RawResponse:
        problem = _invalid(body)
        if problem:
            return error_response(400, problem)
        reply = self._next_reply()
        if reply is None:
            return error_response(500, "no scripted reply left")
        if isinstance(reply, HTTPFailure):
            return self._failure(reply)
        text = reply(body) if callable(reply) else reply
        system = body.get("system")
        texts = [str(m.get("content", "")) for m in body["messages"]] + ([system] if isinstance(system, str) else [])
        input_tokens = sum(self.count_tokens(t) for t in texts)
        payload = {
            "id": f"msg_{len(self.requests):024d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": self.count_tokens(text)},
        }
        return RawResponse(200, json.dumps(payload).encode())


def _invalid(body: Any) -> str:
    """What the real API would reject in this request body as an invalid_request_error; "" when it is valid."""
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    if not isinstance(body.get("model"), str) or not isinstance(body.get("max_tokens"), int):
        return "model and max_tokens are required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return "messages: roles must be 'user' or 'assistant' (a system prompt goes in `system`)"
    if "system" in body and not isinstance(body["system"], str | list):
        return "system must be a string or a list of text blocks"
    return ""


def error_response(status: int, message: str) -> RawResponse:
    kind = ERROR_TYPES.get(status, "api_error")
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return RawResponse(status, json.dumps(body).encode())
