"""What every loopback provider server of the tests shares (tests/support/*_server.py): a threading HTTP server on
127.0.0.1 and a free port, scripted replies answered in order, scripted raw responses that take precedence, every
request recorded (method, path, lower-cased headers, JSON body, query string), and a scripting mistake answered as
a 500 the test can see. A completion reports its usage in the provider's own shape: its prompt's tokens (every
message, the system prompt too) and its reply's, as `count_tokens` counts them (whitespace words unless told
otherwise). A subclass speaks one provider's protocol: `_route` answers a request, `_error_response` shapes an
error body as that provider does."""

from __future__ import annotations

import json
import sys
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self


@dataclass(frozen=True, slots=True)
class HTTPFailure:
    """A scripted reply that is an HTTP error instead of an answer (with these response headers)."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)


Reply = str | Callable[[dict[str, Any]], str] | HTTPFailure
TokenCounter = Callable[[str], int]


def words(text: str) -> int:
    """The servers' default token count: whitespace-separated words."""
    return len(text.split())


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


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout test) leaves a broken pipe behind: expected, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LoopbackServer(ABC):
    """A scripted endpoint on 127.0.0.1, on a free port, served from a background thread."""

    name = "loopback"  # the serving thread's name

    def __init__(self, *, count_tokens: TokenCounter = words) -> None:
        self.count_tokens = count_tokens  # how the usage a reply reports counts a text's tokens
        self.requests: list[RecordedRequest] = []
        self._replies: deque[Any] = deque()  # Reply, or a subclass's own kinds of reply
        self._overrides: deque[RawResponse] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> Self:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                server._handle(self)

            def do_GET(self) -> None:
                server._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

        self._httpd = QuietServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name=self.name, daemon=True
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

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not running"
        return int(self._httpd.server_address[1])

    # ---- scripting ----------------------------------------------------------------------------------

    def reply(self, *replies: Reply) -> None:
        """Queue replies, answered in order, one per call that takes one."""
        with self._lock:
            self._replies.extend(replies)

    def reply_json(self, *objects: Any) -> None:
        """Queue replies whose text is each object serialised as JSON."""
        self.reply(*(json.dumps(o) for o in objects))

    def fail_next(self, status: int, times: int = 1, *, headers: Mapping[str, str] | None = None) -> None:
        """Answer the next `times` calls (to any path) with this HTTP error status, the provider's error body and
        these headers; after any calls already scripted, so that calls in turn script a sequence."""
        for _ in range(times):
            response = self._scripted_failure(status)
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

    # ---- serving ------------------------------------------------------------------------------------

    @abstractmethod
    def _route(self, command: str, path: str, body: Any) -> RawResponse:
        """The provider's answer to a request no raw response was scripted for."""

    @abstractmethod
    def _error_response(self, status: int, message: str) -> RawResponse:
        """An error response shaped as the provider shapes them."""

    def _scripted_failure(self, status: int) -> RawResponse:
        """What `fail_next(status)` answers."""
        return self._error_response(status, f"scripted {status}")

    def _next_reply(self) -> Any:
        """The next scripted reply, or None when none is left."""
        with self._lock:
            return self._replies.popleft() if self._replies else None

    def _failure(self, reply: HTTPFailure) -> RawResponse:
        """A scripted HTTP failure, as the provider answers it."""
        failure = self._error_response(reply.status, f"scripted {reply.status}")
        return RawResponse(failure.status, failure.body, failure.content_type, tuple(reply.headers.items()))

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
        if override is None:
            try:
                override = self._route(handler.command, path, body)
            except Exception as exc:  # a scripting mistake: make it visible to the client and the test
                override = self._error_response(500, f"loopback server failed: {exc!r}")
        _send(handler, override)


def _send(handler: BaseHTTPRequestHandler, response: RawResponse) -> None:
    handler.send_response(response.status)
    handler.send_header("Content-Type", response.content_type)
    handler.send_header("Content-Length", str(len(response.body)))
    for name, value in response.headers:
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(response.body)
