"""A real HTTP receiver of webhooks on loopback: it records every request (headers and body) and answers each with
the next status of a script (then `then`), so a test can make a receiver that fails for a while."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.waits import seconds


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    raw: bytes
    status: int  # what the receiver answered

    @property
    def body(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.raw)
        return parsed

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]


@dataclass
class Receiver:
    url: str
    received: list[Received] = field(default_factory=list)
    script: list[int] = field(default_factory=list)  # the statuses of the next answers, in order
    then: int = 200  # the status once the script is spent
    lock: threading.Lock = field(default_factory=threading.Lock)
    hold: threading.Event = field(default_factory=threading.Event)  # set: requests wait (unanswered) until clear
    arrived: int = 0  # requests received, answered or not

    def release(self) -> None:
        self.hold.clear()

    def answer(self) -> int:
        with self.lock:
            return self.script.pop(0) if self.script else self.then

    def delivered(self) -> list[Received]:
        """The requests answered 2xx, each webhook-id once (a receiver drops repeats), in arrival order."""
        seen: set[str] = set()
        out = []
        with self.lock:
            requests = list(self.received)
        for r in requests:
            if 200 <= r.status < 300 and r.webhook_id not in seen:
                seen.add(r.webhook_id)
                out.append(r)
        return out

    def wait_for(self, predicate: Callable[[list[Received]], bool], timeout: float = 20.0) -> list[Received]:
        deadline = time.monotonic() + seconds(timeout)
        while True:
            got = self.delivered()
            if predicate(got):
                return got
            assert time.monotonic() < deadline, f"the receiver got {[r.body.get('event_type') for r in got]}"
            time.sleep(0.05)

    def wait_for_count(self, count: int, timeout: float = 20.0) -> list[Received]:
        return self.wait_for(lambda got: len(got) >= count, timeout)


@contextmanager
def receiving(script: list[int] | None = None, then: int = 200) -> Iterator[Receiver]:
    """A receiver on a free loopback port, for the duration of the block."""
    receiver = Receiver(url="", script=list(script or []), then=then)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with receiver.lock:
                receiver.arrived += 1
            while receiver.hold.is_set():  # a receiver that hangs: the sender waits, then times out
                time.sleep(0.05)
            status = receiver.answer()
            with receiver.lock:
                headers = {k.lower(): v for k, v in self.headers.items()}
                receiver.received.append(Received(self.path, headers, raw, status))
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
