"""A loopback HTTP server that speaks Google's Gemini REST API (v1beta), for testing the real httpx client code.

- `POST /v1beta/models/{model}:generateContent` answers scripted replies in order: strings, callables that
  receive the request's JSON body and return the reply text, `Blocked(...)` for a prompt or an answer blocked
  by safety, or `HTTPFailure(status)` to fail that call. The response has the real generateContent shape.
- `POST /v1beta/models/{model}:batchEmbedContents` answers deterministic embeddings (the bag of words of
  `tests.support.openai_server.embedding_for`: not unit length, equal texts get equal vectors), one per
  request, of `outputDimensionality` values when asked for, else `embedding_dims`.
- Every request is recorded (path, lower-cased headers, JSON body) for assertions.
- `fail_next(status, headers=...)` makes the next call answer an HTTP error with a Gemini error body
  (`{"error": {"code", "message", "status"}}`); calling it again scripts the call after, and so on.
  `respond_raw_next(...)` sends any body.

Usage::

    with GeminiServer() as server:
        server.reply('{"facts": []}')
        llm = GeminiLLM(GeminiLLMConfig(base_url=server.base_url, api_key="k"))
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tests.support.openai_server import HTTPFailure, RawResponse, RecordedRequest, _QuietServer, embedding_for

STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_ROUTE = re.compile(r"^/v1beta/models/(?P<model>[^/:]+):(?P<method>\w+)$")


@dataclass(frozen=True, slots=True)
class Blocked:
    """A scripted reply blocked by safety: the prompt (`promptFeedback.blockReason`, no candidates), or the
    answer (a candidate whose `finishReason` is `reason`)."""

    reason: str = "SAFETY"
    prompt: bool = False


Reply = str | Callable[[dict[str, Any]], str] | HTTPFailure | Blocked


class GeminiServer:
    """A scripted Gemini endpoint on 127.0.0.1, on a free port, served from a background thread."""

    def __init__(self, *, embedding_dims: int = 64, honour_dimensions: bool = True) -> None:
        self.embedding_dims = embedding_dims  # the width of embeddings when a request asks for none
        self.honour_dimensions = honour_dimensions  # False: ignore `outputDimensionality`
        self.requests: list[RecordedRequest] = []
        self._replies: deque[Reply] = deque()
        self._overrides: deque[RawResponse] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> GeminiServer:
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
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="gemini-loopback", daemon=True
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

    def __enter__(self) -> GeminiServer:
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
        """What a client's `base_url` should be: `http://127.0.0.1:<port>` (the client adds `/v1beta/...`)."""
        return f"http://127.0.0.1:{self.port}"

    # ---- scripting ----------------------------------------------------------------------------------

    def reply(self, *replies: Reply) -> None:
        """Queue generateContent replies, answered in order, one per call."""
        with self._lock:
            self._replies.extend(replies)

    def fail_next(
        self, status: int, times: int = 1, *, headers: Mapping[str, str] | None = None, message: str = ""
    ) -> None:
        """Answer the next `times` calls (to any path) with this HTTP error status, a Gemini error body and
        these headers; after any calls already scripted, so that calls in turn script a sequence."""
        for _ in range(times):
            self.respond_raw_next(status, error_body(status, message or f"scripted {status}"), headers=headers)

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

    # ---- inspection ---------------------------------------------------------------------------------

    def requests_to(self, suffix: str) -> list[RecordedRequest]:
        """The recorded requests whose path ends with `suffix`, oldest first."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith(suffix)]

    @property
    def generate_requests(self) -> list[RecordedRequest]:
        return self.requests_to(":generateContent")

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return self.requests_to(":batchEmbedContents")

    def embedded_texts(self) -> Iterator[str]:
        for request in self.embedding_requests:
            for item in request.body["requests"]:
                yield item["content"]["parts"][0]["text"]

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
        route = _ROUTE.match(path)
        method = route["method"] if route and handler.command == "POST" else None
        try:
            if method == "generateContent":
                response = self._generate(body)
            elif method == "batchEmbedContents":
                response = self._embed(route["model"] if route else "", body)
            else:
                response = _error(404, f"no route {handler.command} {path}")
        except Exception as exc:  # a scripting mistake: make it visible to the client and the test
            response = _error(500, f"loopback server failed: {exc!r}")
        self._send(handler, response)

    def _generate(self, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
            return _error(400, "contents is required")
        with self._lock:
            if not self._replies:
                return _error(500, "no scripted reply left")
            reply = self._replies.popleft()
        if isinstance(reply, HTTPFailure):
            failure = _error(reply.status, f"scripted {reply.status}")
            return RawResponse(failure.status, failure.body, failure.content_type, tuple(reply.headers.items()))
        prompt_tokens = sum(len(str(p.get("text", "")).split()) for c in body["contents"] for p in c["parts"])
        if isinstance(reply, Blocked):
            return RawResponse(200, json.dumps(_blocked(reply, prompt_tokens)).encode())
        text = reply(body) if callable(reply) else reply
        payload = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": text}]},
                    "finishReason": "STOP",
                    "index": 0,
                    "safetyRatings": [],
                }
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": len(text.split()),
                "totalTokenCount": prompt_tokens + len(text.split()),
            },
            "modelVersion": "gemini-loopback",
        }
        return RawResponse(200, json.dumps(payload).encode())

    def _embed(self, model: str, body: Any) -> RawResponse:
        if not isinstance(body, dict) or not isinstance(body.get("requests"), list):
            return _error(400, "requests is required")
        if len(body["requests"]) > 100:
            return _error(400, "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch")
        embeddings = []
        for item in body["requests"]:
            if item.get("model") != f"models/{model}":
                return _error(400, f"model {item.get('model')!r} does not match the URL's models/{model}")
            text = item["content"]["parts"][0]["text"]
            asked = item.get("outputDimensionality") if self.honour_dimensions else None
            embeddings.append({"values": embedding_for(text, int(asked or self.embedding_dims))})
        return RawResponse(200, json.dumps({"embeddings": embeddings}).encode())

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, response: RawResponse) -> None:
        handler.send_response(response.status)
        handler.send_header("Content-Type", response.content_type)
        handler.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers:
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(response.body)


def _blocked(reply: Blocked, prompt_tokens: int) -> dict[str, Any]:
    usage = {"promptTokenCount": prompt_tokens, "totalTokenCount": prompt_tokens}
    if reply.prompt:
        return {"promptFeedback": {"blockReason": reply.reason, "safetyRatings": []}, "usageMetadata": usage}
    candidate = {"finishReason": reply.reason, "index": 0, "safetyRatings": [{"blocked": True}]}
    return {"candidates": [candidate], "usageMetadata": usage}


def error_body(status: int, message: str) -> bytes:
    """Gemini's error body for this HTTP status."""
    return json.dumps(
        {"error": {"code": status, "message": message, "status": STATUSES.get(status, "UNKNOWN")}}
    ).encode()


def _error(status: int, message: str) -> RawResponse:
    return RawResponse(status, error_body(status, message))
