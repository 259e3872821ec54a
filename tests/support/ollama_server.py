"""A loopback HTTP server that speaks Ollama's native API, for testing the real httpx client code.

- `POST /api/chat` (any path ending in `/api/chat`, e.g. behind a proxy's prefix) answers scripted replies
  in order: strings, callables that receive the request's JSON body and return the reply text, or
  `HTTPFailure(status)` to fail that call. The response has the real non-streaming `/api/chat` shape
  (`message`, `done`, durations and token counts).
- `POST /api/embed` (any path ending in `/api/embed`) answers deterministic embeddings of `embedding_dims`
  floats (the bag of words of tests.support.openai_server.embedding_for): texts sharing words are similar,
  equal texts get equal vectors, and rows are *not* unit length (the client must normalise them).
- Every request is recorded (path, lower-cased headers, JSON body) for assertions.
- `fail_next(status, headers=...)` makes the next call answer an HTTP error with Ollama's `{"error": "..."}`
  body; calling it again scripts the call after, and so on. `respond_raw_next(...)` sends any body.

Usage::

    with OllamaServer() as server:
        server.reply('{"facts": []}')
        llm = OllamaLLM(OllamaLLMConfig(base_url=server.base_url, model="m"))
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tests.support.openai_server import (
    HTTPFailure,
    RawResponse,
    RecordedRequest,
    Reply,
    _QuietServer,
    embedding_for,
)

__all__ = ["HTTPFailure", "OllamaServer", "RecordedRequest", "embedding_for"]

_ERROR_MESSAGES = {
    400: "invalid request",
    404: 'model "{model}" not found, try pulling it first',
    500: "llama runner process has terminated",
    503: "server busy, please try again",
}


class OllamaServer:
    """A scripted Ollama endpoint on 127.0.0.1, on a free port, served from a background thread."""

    def __init__(self, *, embedding_dims: int = 32) -> None:
        self.embedding_dims = embedding_dims  # the width of every embedding it answers
        self.requests: list[RecordedRequest] = []
        self._replies: deque[Reply] = deque()
        self._overrides: deque[RawResponse] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> OllamaServer:
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
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="ollama-loopback", daemon=True
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

    def __enter__(self) -> OllamaServer:
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
        """What a client's `base_url` should be: `http://127.0.0.1:<port>` (Ollama's paths start at `/api`)."""
        return f"http://127.0.0.1:{self.port}"

    # ---- scripting ----------------------------------------------------------------------------------

    def reply(self, *replies: Reply) -> None:
        """Queue chat replies, answered in order, one per chat call."""
        with self._lock:
            self._replies.extend(replies)

    def reply_json(self, *objects: Any) -> None:
        self.reply(*(json.dumps(o) for o in objects))

    def fail_next(self, status: int, times: int = 1, *, headers: Mapping[str, str] | None = None) -> None:
        """Answer the next `times` calls (to any path) with this HTTP error status, an Ollama error body and
        these headers; after any calls already scripted, so that calls in turn script a sequence."""
        for _ in range(times):
            response = _error(status, _ERROR_MESSAGES.get(status, f"scripted {status}").format(model="m"))
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

    # ---- inspection ---------------------------------------------------------------------------------

    def requests_to(self, suffix: str) -> list[RecordedRequest]:
        """The recorded requests whose path ends with `suffix`, oldest first."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith(suffix)]

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/api/chat")

    @property
    def embed_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/api/embed")

    def embedded_texts(self) -> Iterator[str]:
        for request in self.embed_requests:
            yield from request.body["input"]

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
            if handler.command == "POST" and path.endswith("/api/chat"):
                response = self._chat(body)
            elif handler.command == "POST" and path.endswith("/api/embed"):
                response = self._embed(body)
            else:
                response = _error(404, "404 page not found")
        except Exception as exc:  # a scripting mistake: make it visible to the client and the test
            response = _error(500, f"loopback server failed: {exc!r}")
        self._send(handler, response)

    def _chat(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return _error(400, "model is required")
        if not isinstance(body.get("messages"), list):
            return _error(400, "messages is required")
        with self._lock:
            if not self._replies:
                return _error(500, "no scripted chat reply left")
            reply = self._replies.popleft()
        if isinstance(reply, HTTPFailure):
            failure = _error(reply.status, _ERROR_MESSAGES.get(reply.status, "scripted").format(model=body["model"]))
            return RawResponse(failure.status, failure.body, failure.content_type, tuple(reply.headers.items()))
        content = reply(body) if callable(reply) else reply
        payload = {
            "model": body["model"],
            "created_at": "2026-01-01T00:00:00.000000Z",
            "message": {"role": "assistant", "content": content},
            "done_reason": "stop",
            "done": True,
            "total_duration": 1_000_000,
            "load_duration": 100_000,
            "prompt_eval_count": sum(len(str(m.get("content", "")).split()) for m in body["messages"]),
            "prompt_eval_duration": 200_000,
            "eval_count": len(content.split()),
            "eval_duration": 700_000,
        }
        return RawResponse(200, json.dumps(payload).encode())

    def _embed(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("model"), str) or "input" not in body:
            return _error(400, "model and input are required")
        texts = body["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _error(400, "invalid input type")
        payload = {
            "model": body["model"],
            "embeddings": [embedding_for(text, self.embedding_dims) for text in texts],
            "total_duration": 1_000_000,
            "load_duration": 100_000,
            "prompt_eval_count": sum(len(t.split()) for t in texts),
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


def _error(status: int, message: str) -> RawResponse:
    return RawResponse(status, json.dumps({"error": message}).encode())
