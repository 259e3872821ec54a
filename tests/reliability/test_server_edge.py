"""The edge of a real `mnemo serve` process (mnemo.entrypoints.http_edge), over raw sockets on loopback: one client
cannot hold the process.

- A head past its bound is answered 431 before the rest is read: the process does not grow by what was sent.
- A client that sends half a request's head and stops is disconnected after the head timeout, while another
  client's requests are served throughout.
- Connections that send nothing, and idle keep-alive connections, are closed.
- Past the connection bound a new connection is answered 503, while the open ones (one in the middle of a request)
  are served; once they close, new connections are served again.

The bounds are made small through the environment so that each point shows quickly; no time is measured, the
waits below are only ceilings for a loaded machine."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.reliability.live_server import Server, memory_status, serving

WAIT = 60.0  # seconds at most for anything below to happen, on a loaded two-core machine
GET = b"GET /auth/setup-status HTTP/1.1\r\nHost: edge\r\n\r\n"
HALF_GET = b"GET /auth/setup-status HTTP/1.1\r\nHost: ed"
HUGE = 16 * 1024 * 1024  # bytes of one header: 500 times its bound
QUICK = {"MNEMO_HTTP_HEAD_TIMEOUT_SECONDS": "2", "MNEMO_HTTP_KEEP_ALIVE_SECONDS": "1"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("edge")
    with serving(root / "data", root / "serve.log", **QUICK) as served:
        yield served


def connect(server: Server) -> socket.socket:
    address = urlsplit(server.base)
    return socket.create_connection((address.hostname or "127.0.0.1", address.port or 80), timeout=WAIT)


def read_answer(sock: socket.socket) -> bytes:
    """One answer (its head and its content-length's bytes of body), or what came before the server closed."""
    received = b""
    while b"\r\n\r\n" not in received or len(received) < answer_size(received):
        chunk = sock.recv(65_536)
        if not chunk:
            break
        received += chunk
    return received


def answer_size(received: bytes) -> int:
    """The size of the answer whose head `received` starts with."""
    head, _, _body = received.partition(b"\r\n\r\n")
    length = 0
    for line in head.lower().split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name == b"content-length":
            length = int(value)
    return len(head) + 4 + length


def status(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer.split(b" ", 2)[1])


def closed_by_server(sock: socket.socket, within: float = WAIT) -> bool:
    """Whether the server closes the connection (what it still sends is read) within `within` seconds."""
    sock.settimeout(within)
    try:
        while sock.recv(65_536):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def send_quietly(sock: socket.socket, data: bytes) -> None:
    """Send what the server may stop reading: its closing the connection ends the sending."""
    with contextlib.suppress(OSError):
        sock.sendall(data)


def reset_peak_memory(pid: int) -> None:
    """Make the process's VmHWM its VmRSS of now (Linux: /proc/<pid>/clear_refs)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


# ---- a head past its bound -----------------------------------------------------------------------------


def test_a_header_past_its_bound_is_refused_before_it_is_read_whole(server: Server) -> None:
    reset_peak_memory(server.pid)
    before = memory_status(server.pid)["VmHWM"]
    with connect(server) as sock:
        head = b"GET /auth/setup-status HTTP/1.1\r\nHost: edge\r\nX-Huge: "
        sender = threading.Thread(target=send_quietly, args=(sock, head + b"a" * HUGE + b"\r\n\r\n"), daemon=True)
        sender.start()
        answer = read_answer(sock)
        assert closed_by_server(sock)
        sender.join(WAIT)
    grown_bytes = (memory_status(server.pid)["VmHWM"] - before) * 1_024
    assert status(answer) == 431
    assert grown_bytes < HUGE // 4, f"the process grew by {grown_bytes:,} bytes for a {HUGE:,}-byte header"
    assert httpx.get(f"{server.base}/auth/setup-status", timeout=WAIT).status_code == 200


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"GET /auth/setup-status?x=" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: edge\r\n\r\n", 414),
        (
            b"GET /auth/setup-status HTTP/1.1\r\nHost: edge\r\n"
            + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 4_000) for i in range(10))
            + b"\r\n",
            431,
        ),
        (b"GET /auth/setup-status HTTP/1.1\r\nHost: edge\r\nX-Fits: " + b"a" * 8_000 + b"\r\n\r\n", 200),
    ],
    ids=["a request line over 64 KiB", "headers over 32 KiB", "a header within 8 KiB"],
)
def test_the_request_line_and_the_headers_have_their_bounds(server: Server, head: bytes, expected: int) -> None:
    with connect(server) as sock:
        sock.sendall(head)
        assert status(read_answer(sock)) == expected


# ---- slow and idle clients -----------------------------------------------------------------------------


def test_a_client_that_stops_mid_head_is_disconnected_while_others_are_served(server: Server) -> None:
    with connect(server) as slow:
        slow.sendall(HALF_GET)
        answers: list[int] = []
        deadline = time.monotonic() + WAIT
        while not closed_by_server(slow, within=0.2):
            assert time.monotonic() < deadline, "the half-sent request's connection was never closed"
            answers.append(httpx.get(f"{server.base}/auth/setup-status", timeout=WAIT).status_code)
    assert answers and set(answers) == {200}


def test_connections_that_send_nothing_and_idle_keep_alive_ones_are_closed(server: Server) -> None:
    silent = [connect(server) for _ in range(20)]
    kept_alive = connect(server)
    try:
        kept_alive.sendall(GET)
        assert status(read_answer(kept_alive)) == 200
        assert all(closed_by_server(sock) for sock in [*silent, kept_alive])
    finally:
        for sock in [*silent, kept_alive]:
            sock.close()


# ---- the connection bound ------------------------------------------------------------------------------


def test_past_the_connection_bound_new_connections_are_refused_while_the_open_ones_are_served(
    tmp_path: Path,
) -> None:
    bound = {
        "MNEMO_HTTP_MAX_CONNECTIONS": "4",
        "MNEMO_HTTP_HEAD_TIMEOUT_SECONDS": "300",
        "MNEMO_HTTP_KEEP_ALIVE_SECONDS": "300",
    }
    with serving(tmp_path / "data", tmp_path / "serve.log", **bound) as server:
        held = [served_connection(server) for _ in range(4)]
        try:
            in_flight = held[0]
            in_flight.sendall(HALF_GET)  # a request under way when the bound is reached
            with connect(server) as extra:
                extra.sendall(GET)
                assert status(read_answer(extra)) == 503
                assert closed_by_server(extra)
            in_flight.sendall(b"ge\r\n\r\n")
            assert status(read_answer(in_flight)) == 200
            for sock in held[1:]:
                sock.sendall(GET)
                assert status(read_answer(sock)) == 200
        finally:
            for sock in held:
                sock.close()
        served_connection(server).close()  # the closed ones no longer count


def served_connection(server: Server) -> socket.socket:
    """A keep-alive connection whose first request was answered 200: one the server counts. One refused while the
    server has not yet seen an earlier connection close (the readiness probe's) is tried again."""
    deadline = time.monotonic() + WAIT
    while True:
        sock = connect(server)
        sock.sendall(GET)
        if status(read_answer(sock)) == 200:
            return sock
        sock.close()
        assert time.monotonic() < deadline, "no connection was served"
        time.sleep(0.1)  # polling: the condition is the answer above
