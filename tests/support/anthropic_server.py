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
import threading
from collections import deque
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tests.support.openai_server import HTTPFailure, RawResponse, RecordedRequest, _QuietServer

Reply = str | Callable[[dict[str, Any]], str] | HTTPFailure

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


class AnthropicServer:
    """A scripted Messages API endpoint on 127.0.0.1, on a free port, served from a background thread."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._replies: deque[Reply] = deque()
        self._overrides: deque[RawResponse] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> AnthropicServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                server._handle(self)

            def do_GET(self) -> None:
                server._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="anthropic-loopback", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> AnthropicServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not running"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What a client's `base_url` should be: `http://127.0.0.1:<port>` (the client adds `/v1/messages`)."""
        return f"http://127.0.0.1:{self.port}"

    # ---- scripting ----------------------------------------------------------------------------------

    def reply(self, *replies: Reply) -> None:
        """Queue message replies, answered in order, one per call."""
        with self._lock:
            self._replies.extend(replies)

    def fail_next(self, status: int, times: int = 1, *, headers: Mapping[str, str] | None = None) -> None:
        """Answer the next `times` calls with this HTTP error status, an Anthropic error body and these
        headers; after any calls already scripted, so that calls in turn script a sequence."""
        for _ in range(times):
            response = error_response(status, f"scripted {status}")
            self.respond_raw_next(response.status, response.body, headers=headers)

    def respond_raw_next(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Answer the next call (to any path) with exactly this status, body and headers."""
        with self._lock:
            self._overrides.append(RawResponse(status, body, content_type, tuple((headers or {}).items())))

    @property
    def pending_replies(self) -> int:
        with self._lock:
            return len(self._replies)

    @property
    def message_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/messages")]

    # ---- serving ------------------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        path = handler.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in handler.headers.items()}
        with self._lock:
            self.requests.append(RecordedRequest(handler.command, path, headers, body))
            override = self._overrides.popleft() if self._overrides else None
        if override is not None:
            self._send(handler, override)
            return
        try:
            if handler.command == "POST" and path.endswith("/messages"):
                response = self._messages(body)
            else:
                response = error_response(404, f"no route {handler.command} {path}")
        except Exception as exc:  # a scripting mistake: make it visible to the client and the test
            response = error_response(500, f"loopback server failed: {exc!r}")
        self._send(handler, response)

    def _messages(self, body: Any) -> RawResponse:
        problem = _invalid(body)
        if problem:
            return error_response(400, problem)
        with self._lock:
            if not self._replies:
                return error_response(500, "no scripted reply left")
            reply = self._replies.popleft()
        if isinstance(reply, HTTPFailure):
            failure = error_response(reply.status, f"scripted {reply.status}")
            return RawResponse(failure.status, failure.body, failure.content_type, tuple(reply.headers.items()))
        text = reply(body) if callable(reply) else reply
        input_tokens = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        payload = {
            "id": f"msg_{len(self.requests):024d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": len(text.split())},
        }
        return RawResponse(200, json.dumps(payload).encode())

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, response: RawResponse) -> None:
        handler.send_response(response.status)
        handler.send_header("Content-Type", response.content_type)
        handler.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers:
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(response.body)


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
