"""EdgeProtocol (mnemo.entrypoints.http_edge) on a fake transport: a head past one of its bounds is answered 414 or
431 without reaching the app and after at most its bound was parsed; a client that does not finish a head in time is
closed, one being answered is not; past the connection bound a new connection is answered 503 and never counted."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState

from mnemo.entrypoints import http_edge
from mnemo.entrypoints.http_edge import EdgeConfig, EdgeLimits, EdgeProtocol

SMALL = EdgeLimits(
    max_request_line_bytes=1_024,
    max_header_bytes=512,
    max_headers_bytes=2_048,
    head_timeout_seconds=0.05,
    max_connections=2,
)
GET = b"GET /status HTTP/1.1\r\nHost: edge\r\n\r\n"


class FakeTransport(asyncio.Transport):
    """What the protocol writes, whether it ended its side, whether it closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.ended = False
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 40_000), "sockname": ("127.0.0.1", 8_000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.ended = True

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def status(self) -> int:
        """The status of the first answer written."""
        return int(bytes(self.written).split(b" ", 2)[1])


class App:
    """An ASGI app that answers 200 at once, or once `release` is set when `hold` is; it counts its calls."""

    def __init__(self, *, hold: bool = False) -> None:
        self.calls = 0
        self.hold = hold
        self.release = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1
        if self.hold:
            await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})


class FedParser:
    """The protocol's parser, counting the bytes fed to it."""

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        self.fed = 0

    def feed_data(self, data: bytes) -> None:
        self.fed += len(data)
        self.parser.feed_data(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.parser, name)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    asyncio.set_event_loop(running)
    try:
        yield running
    finally:
        running.close()
        asyncio.set_event_loop(None)


def connect(
    loop: asyncio.AbstractEventLoop, app: App, state: ServerState | None = None, limits: EdgeLimits = SMALL
) -> tuple[EdgeProtocol, FakeTransport]:
    config = EdgeConfig(app, limits=limits, lifespan="off", log_level="warning")
    protocol = EdgeProtocol(config, state or ServerState(), {}, _loop=loop)
    transport = FakeTransport()
    protocol.connection_made(transport)
    return protocol, transport


def settle(loop: asyncio.AbstractEventLoop, seconds: float = 0.0) -> None:
    """Run the loop's ready work (the app's task), and its timers due within `seconds`."""
    loop.run_until_complete(asyncio.sleep(seconds))
    loop.run_until_complete(asyncio.sleep(0))


# ---- the head's bounds ---------------------------------------------------------------------------------


def test_a_request_within_every_bound_reaches_the_app(loop: asyncio.AbstractEventLoop) -> None:
    app = App()
    protocol, transport = connect(loop, app)
    header = b"X-Fits: " + b"a" * (SMALL.max_header_bytes - len(b"X-Fits"))
    protocol.data_received(b"GET /" + b"p" * 1_000 + b" HTTP/1.1\r\nHost: edge\r\n" + header + b"\r\n\r\n")
    settle(loop)
    assert (app.calls, transport.status(), transport.closed) == (1, 200, False)


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"GET /" + b"p" * 1_024 + b" HTTP/1.1\r\nHost: edge\r\n\r\n", 414),
        (b"GET / HTTP/1.1\r\nHost: edge\r\nX-Big: " + b"a" * 600 + b"\r\n\r\n", 431),
        (b"GET / HTTP/1.1\r\nHost: edge\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 200) for i in range(12)), 431),
    ],
    ids=["request line", "one header", "all headers"],
)
def test_a_head_past_a_bound_is_refused_and_never_reaches_the_app(
    loop: asyncio.AbstractEventLoop, head: bytes, status: int
) -> None:
    app = App()
    protocol, transport = connect(loop, app)
    protocol.data_received(head)
    settle(loop)
    assert (app.calls, transport.status(), transport.ended) == (0, status, True)
    assert b"connection: close" in transport.written


def test_an_endless_header_is_refused_after_at_most_the_heads_bound_was_parsed(
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Given a client sending one header of 1 MB, when it arrives in pieces of 64 kB, then the parser has been fed
    no more than the head's bound, the answer is 431, and what follows is dropped unread by the parser."""
    limits = EdgeLimits(max_header_bytes=100_000, max_headers_bytes=100_000)
    protocol, transport = connect(loop, App(), limits=limits)
    fed = FedParser(protocol.parser)
    protocol.parser = fed  # type: ignore[assignment]
    protocol.data_received(b"GET / HTTP/1.1\r\nHost: edge\r\nX-Endless: ")
    for _ in range(16):
        protocol.data_received(b"a" * 65_536)
    assert transport.status() == 431
    assert fed.fed <= limits.max_head_bytes


def test_each_request_of_a_keep_alive_connection_has_the_whole_bound(loop: asyncio.AbstractEventLoop) -> None:
    """Given requests whose heads are each more than half the head's bound, when sent one after another on one
    connection, then each is answered: the bound counts one head, not the connection."""
    app = App()
    protocol, transport = connect(loop, app)
    head = b"GET / HTTP/1.1\r\nHost: edge\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 300) for i in range(4))
    for _ in range(3):
        protocol.data_received(head + b"\r\n")
        settle(loop)
    assert (app.calls, bytes(transport.written).count(b"HTTP/1.1 200 OK")) == (3, 3)


def test_a_malformed_request_is_still_uvicorns_400(loop: asyncio.AbstractEventLoop) -> None:
    protocol, transport = connect(loop, App())
    protocol.data_received(b"GET / HTTP/1.1\nHost: edge\n\n")
    assert (transport.status(), transport.closed) == (400, True)


def test_a_refused_client_is_answered_then_closed_after_the_linger(
    loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_edge, "LINGER_SECONDS", 0.01)
    protocol, transport = connect(loop, App())
    protocol.data_received(b"GET / HTTP/1.1\r\nX-Big: " + b"a" * 600 + b"\r\n\r\n")
    protocol.data_received(b"more of it, dropped")
    assert transport.status() == 431
    assert not transport.closed
    settle(loop, 0.05)
    assert transport.closed


# ---- the head's time -----------------------------------------------------------------------------------


def test_a_connection_that_sends_nothing_is_closed_after_the_head_timeout(loop: asyncio.AbstractEventLoop) -> None:
    _protocol, transport = connect(loop, App())
    settle(loop, SMALL.head_timeout_seconds * 3)
    assert transport.closed


def test_a_client_that_stops_mid_head_is_closed_after_the_head_timeout(loop: asyncio.AbstractEventLoop) -> None:
    app = App()
    protocol, transport = connect(loop, app)
    protocol.data_received(GET)
    settle(loop)
    protocol.data_received(b"GET /status HTTP/1.1\r\nHo")  # the next request, half sent
    settle(loop, SMALL.head_timeout_seconds * 3)
    assert (app.calls, transport.closed) == (1, True)


def test_a_request_being_answered_is_not_cut_by_the_head_timeout(loop: asyncio.AbstractEventLoop) -> None:
    app = App(hold=True)
    protocol, transport = connect(loop, app)
    protocol.data_received(GET)
    settle(loop, SMALL.head_timeout_seconds * 3)
    assert (app.calls, transport.closed) == (1, False)
    app.release.set()
    settle(loop)
    assert (transport.status(), transport.closed) == (200, False)


# ---- the connection bound ------------------------------------------------------------------------------


def test_past_the_connection_bound_a_new_connection_is_answered_503_and_not_counted(
    loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_edge, "LINGER_SECONDS", 0.01)
    state = ServerState()
    app = App()
    open_ones = [connect(loop, app, state) for _ in range(SMALL.max_connections)]
    refused, transport = connect(loop, app, state)
    assert (transport.status(), transport.ended, len(state.connections)) == (503, True, SMALL.max_connections)
    refused.data_received(GET)  # dropped
    settle(loop, 0.03)
    assert (transport.closed, app.calls) == (True, 0)
    open_ones[0][0].data_received(GET)
    settle(loop)
    assert open_ones[0][1].status() == 200


def test_a_plain_uvicorn_configuration_gets_the_default_limits(loop: asyncio.AbstractEventLoop) -> None:
    config = uvicorn.Config(App(), lifespan="off")
    assert EdgeProtocol(config, ServerState(), {}, _loop=loop).limits == EdgeLimits()
