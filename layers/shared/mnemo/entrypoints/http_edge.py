"""The edge of `mnemo serve`'s HTTP server: what one client may cost the process before a request reaches the app.

`mnemo serve` runs uvicorn with its httptools parser (llhttp). That parser bounds nothing: it gathers a header of any
size in memory, and uvicorn arms no timer until a first response has been sent, nor counts the connections it
accepts, so one client sending an endless header, or many that connect and send nothing, hold the process.
`EdgeProtocol` is uvicorn's httptools protocol with the bounds of `EdgeLimits` added where the bytes arrive:

- the head (request line and headers) is fed to the parser in pieces no larger than what is left of its bound, so a
  head past it is refused (431) after at most that many bytes were read, whatever the client still sends; the
  request line and each header have their own bound (414, 431), checked as the parser hands them over;
- a client must finish sending a request's head within `head_timeout_seconds` of connecting or of the previous
  response, else the connection is closed (uvicorn's own keep-alive timer still closes an idle one sooner);
- past `max_connections` open connections a new one is answered 503 at once and closed; those open go on.

A refusal is answered and then closed gracefully: the answer, the end of our side, and whatever the client still
sends is read and dropped for at most `LINGER_SECONDS` (closing with unread bytes would reset the connection, and
the client could lose the answer). Everything else is uvicorn's: parse errors (400), upgrades, pipelining, flow
control. `EdgeConfig` carries the limits to each protocol instance, and into uvicorn's worker processes with it.
"""

from __future__ import annotations

import asyncio
import http
from dataclasses import dataclass
from typing import Any

import httptools
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

LINGER_SECONDS = 2.0  # at most, after a refusal, reading what the client still sends before closing


@dataclass(frozen=True)
class EdgeLimits:
    """The bounds of one server process (the settings `http_*` of mnemo.settings.server)."""

    max_request_line_bytes: int = 65_536  # the request target (path and query string, as sent)
    max_header_bytes: int = 8_192  # one header: its name and value
    max_headers_bytes: int = 32_768  # all the headers of a request
    head_timeout_seconds: float = 10.0
    max_connections: int = 1_000

    @property
    def max_head_bytes(self) -> int:
        """Bytes of a request's head (line, headers and their separators) read at most before it is refused."""
        return self.max_request_line_bytes + self.max_headers_bytes + 1_024


class EdgeConfig(uvicorn.Config):
    """uvicorn's configuration served by `EdgeProtocol` with these limits."""

    def __init__(self, app: Any, *, limits: EdgeLimits, **options: Any) -> None:
        super().__init__(app, http=EdgeProtocol, **options)
        self.edge_limits = limits


class HeadTooLargeError(Exception):
    """A request's head is past a bound: the status that says which."""

    def __init__(self, status: http.HTTPStatus) -> None:
        super().__init__(status.phrase)
        self.status = status


class EdgeProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, bounded (see the module docstring)."""

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = config.edge_limits if isinstance(config, EdgeConfig) else EdgeLimits()
        self._reading_head = True  # from the connection, and from each request's end to its successor's headers
        self._head_bytes = 0  # of the head being read, as received
        self._headers_bytes = 0  # of its headers, as the parser hands them over
        self._too_large: HeadTooLargeError | None = None
        self._head_timer: asyncio.TimerHandle | None = None
        self._refused = False

    # ---- the connection ----------------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.limits.max_connections:
            self.transport = transport
            self.logger.warning("Refused a connection: %d are open, the bound.", len(self.connections))
            self._refuse(http.HTTPStatus.SERVICE_UNAVAILABLE)
            return
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # what a refused client still sends is dropped
        self._unset_keepalive_if_required()
        try:
            self._feed(data)
        except HeadTooLargeError as too_large:
            self._refuse(too_large.status)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
        except httptools.HttpParserError:
            if self._too_large is not None:  # raised by one of the callbacks below
                self._refuse(self._too_large.status)
                return
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)

    def _feed(self, data: bytes) -> None:
        """Feed the parser; while it reads a head, no more at once than what is left of the head's bound."""
        while data:
            if self._reading_head:
                room = self.limits.max_head_bytes - self._head_bytes
                if room <= 0:
                    raise HeadTooLargeError(http.HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
                piece, data = data[:room], data[room:]
                self._head_bytes += len(piece)
            else:
                piece, data = data, b""
            self.parser.feed_data(piece)

    # ---- the parser's callbacks --------------------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._headers_bytes = 0

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > self.limits.max_request_line_bytes:
            raise self._head_too_large(http.HTTPStatus.REQUEST_URI_TOO_LONG)

    def on_header(self, name: bytes, value: bytes) -> None:
        size = len(name) + len(value)
        self._headers_bytes += size + 4  # ": " and CRLF, as sent without padding
        if size > self.limits.max_header_bytes or self._headers_bytes > self.limits.max_headers_bytes:
            raise self._head_too_large(http.HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._reading_head = False
        self._cancel_head_timer()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._reading_head = True
        self._head_bytes = 0

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()

    def _head_too_large(self, status: http.HTTPStatus) -> HeadTooLargeError:
        """The error a callback raises; the parser wraps it in its own, so it is kept here too."""
        self._too_large = HeadTooLargeError(status)
        return self._too_large

    # ---- timers and refusals -----------------------------------------------------------------------------

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(self.limits.head_timeout_seconds, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        """No request's head came whole in time: close, unless a request is being answered."""
        self._head_timer = None
        answering = self.cycle is not None and not self.cycle.response_complete
        if not answering and not self.pipeline and not self.transport.is_closing():
            self.transport.close()

    def _refuse(self, status: http.HTTPStatus) -> None:
        """Answer `status` and close: our side at once, the connection once the client closes its own or after
        LINGER_SECONDS (what it sends meanwhile is dropped)."""
        self._refused = True
        self._cancel_head_timer()
        self._unset_keepalive_if_required()
        body = status.phrase.encode("ascii")
        head = [f"HTTP/1.1 {status.value} {status.phrase}\r\n".encode("ascii")]
        head += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
        head.append(b"content-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\n" % len(body))
        self.transport.write(b"".join([*head, b"connection: close\r\n\r\n", body]))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.transport.resume_reading()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)
