"""A loopback HTTP server that speaks the OpenAI wire protocol, for testing the real httpx client code.

- `POST /v1/chat/completions` (any path ending in `/chat/completions`) answers scripted replies in order:
  strings, callables that receive the request's JSON body and return the reply text, or `HTTPFailure(status)`
  to fail that call. The response has the real chat-completions shape.
- `POST /v1/embeddings` (any path ending in `/embeddings`) answers deterministic embeddings: a bag of words,
  each word a hash-seeded Gaussian vector, so texts sharing words are similar and equal texts get equal
  vectors. Rows are *not* unit length (the client must normalise them) and, unless told otherwise, are sent
  in reverse order with their `index`.
- Every request is recorded (path, lower-cased headers, JSON body, query string) for assertions. Any path
  prefix works, so Azure OpenAI's `/openai/deployments/<name>/chat/completions?api-version=…` is served too.
- `fail_next(status, headers=...)` makes the next call answer an HTTP error (with these headers, e.g.
  `{"Retry-After": "2"}`); calling it again scripts the call after, and so on. `respond_raw_next(...)` sends
  any body.

Usage::

    with OpenAIServer() as server:
        server.reply('{"facts": []}')
        llm = OpenAILLM(OpenAILLMConfig(base_url=server.base_url, model="m"))
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class HTTPFailure:
    """A scripted chat reply that is an HTTP error instead of a completion (with these response headers)."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)


Reply = str | Callable[[dict[str, Any]], str] | HTTPFailure

_WORD = re.compile(r"\w+", re.UNICODE)
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_api_key",
    403: "permission_denied",
    404: "not_found",
    429: "rate_limit_exceeded",
}


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON body, or None when it was not JSON
    query: str = ""  # the raw query string (after "?"), e.g. "api-version=2024-10-21"


@dataclass(frozen=True, slots=True)
class RawResponse:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()  # more response headers, e.g. (("Retry-After", "2"),)


def embedding_for(text: str, dimension: int) -> list[float]:
    """The server's embedding of `text`: the sum of one hash-seeded vector per lower-cased word (not normalised)."""
    total = np.zeros(dimension, dtype=np.float64)
    words = _WORD.findall(text.lower()) or [text]
    for word in words:
        seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "big")
        total += np.random.default_rng(seed).standard_normal(dimension)
    return [float(x) * 3.0 for x in total]  # scaled so that rows are clearly not unit length


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout test) leaves a broken pipe behind: expected, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class OpenAIServer:
    """A scripted OpenAI-compatible endpoint on 127.0.0.1, on a free port, served from a background thread."""

    def __init__(
        self, *, embedding_dims: int = 64, shuffle_embeddings: bool = True, honour_dimensions: bool = True
    ) -> None:
        self.embedding_dims = embedding_dims  # the width of embeddings when a request asks for none
        self.shuffle_embeddings = shuffle_embeddings
        self.honour_dimensions = honour_dimensions  # False: ignore a request's `dimensions`, as some servers do
        self.requests: list[RecordedRequest] = []
        self._replies: deque[Reply] = deque()
        self._overrides: deque[RawResponse] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> OpenAIServer:
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
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="openai-loopback", daemon=True
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

    def __enter__(self) -> OpenAIServer:
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
        """What a client's `base_url` should be: `http://127.0.0.1:<port>/v1`."""
        return f"http://127.0.0.1:{self.port}/v1"

    # ---- scripting ----------------------------------------------------------------------------------

    def reply(self, *replies: Reply) -> None:
        """Queue chat-completion replies, answered in order, one per chat call."""
        with self._lock:
            self._replies.extend(replies)

    def reply_json(self, *objects: Any) -> None:
        """Queue chat-completion replies whose text is each object serialised as JSON."""
        self.reply(*(json.dumps(o) for o in objects))

    def fail_next(self, status: int, times: int = 1, *, headers: Mapping[str, str] | None = None) -> None:
        """Answer the next `times` calls (to any path) with this HTTP error status, an OpenAI error body and
        these headers; after any calls already scripted, so that calls in turn script a sequence."""
        for _ in range(times):
            response = _error(status, f"scripted {status}")
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
        return self.requests_to("/chat/completions")

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/embeddings")

    def embedded_texts(self) -> Iterator[str]:
        for request in self.embedding_requests:
            yield from request.body["input"]

    # ---- serving ------------------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        path, _, query = handler.path.partition("?")
        headers = {k.lower(): v for k, v in handler.headers.items()}
        with self._lock:
            self.requests.append(RecordedRequest(handler.command, path, headers, body, query))
            override = self._overrides.popleft() if self._overrides else None
        if override is not None:
            self._send(handler, override)
            return
        try:
            if handler.command == "POST" and path.endswith("/chat/completions"):
                response = self._chat(body)
            elif handler.command == "POST" and path.endswith("/embeddings"):
                response = self._embeddings(body)
            else:
                response = _error(404, f"no route {handler.command} {path}")
        except Exception as exc:  # a scripting mistake: make it visible to the client and the test
            response = _error(500, f"loopback server failed: {exc!r}")
        self._send(handler, response)

    def _chat(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "messages is required")
        with self._lock:
            if not self._replies:
                return _error(500, "no scripted chat reply left")
            reply = self._replies.popleft()
        if isinstance(reply, HTTPFailure):
            failure = _error(reply.status, f"scripted {reply.status}")
            return RawResponse(failure.status, failure.body, failure.content_type, tuple(reply.headers.items()))
        content = reply(body) if callable(reply) else reply
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        completion_tokens = len(content.split())
        payload = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body.get("model", "unknown"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return RawResponse(200, json.dumps(payload).encode())

    def _embeddings(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or "input" not in body:
            return _error(400, "input is required")
        texts = body["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _error(400, "input must be a string or a list of strings")
        asked = body.get("dimensions") if self.honour_dimensions else None
        dimension = int(asked or self.embedding_dims)
        data = [
            {"object": "embedding", "index": i, "embedding": embedding_for(text, dimension)}
            for i, text in enumerate(texts)
        ]
        if self.shuffle_embeddings:
            data.reverse()
        tokens = sum(len(t.split()) for t in texts)
        payload = {
            "object": "list",
            "data": data,
            "model": body.get("model", "unknown"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
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
    kind = _ERROR_TYPES.get(status, "server_error")
    return RawResponse(status, json.dumps({"error": {"message": message, "type": kind, "code": kind}}).encode())
