"""A recording proxy in front of an OpenAI-compatible server (`python -m bench.llm_local replay`).

Each answer the model gives is kept under the cache (`answers/<sha256 of the path and the request body>.json`, the
request beside it), and the same request again is answered from there. On this machine one add costs minutes of
model time; a benchmark run again after a change that does not alter what the model is asked (what mnemo does with
the facts it gets, the scoring) then costs none, and a request that differs goes to the model and is kept in turn.
mnemo's providers sample at a temperature of 0.1, so the model may answer the same request otherwise another time:
a replayed run is the run that was recorded, not a new draw. Only a 200 is kept: an error is passed on and asked
again next time.
"""

from __future__ import annotations

import hashlib
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DEFAULT_REPLAY_PORT = 8767
UPSTREAM_TIMEOUT = 3600.0  # seconds: one cold call of a long prompt takes minutes on one thread


class ReplayProxy:
    def __init__(self, upstream: str, answers: Path) -> None:
        """`upstream`: the server's root URL (http://127.0.0.1:8766); `answers`: where answers are kept."""
        self.upstream = upstream.rstrip("/")
        self.answers = answers
        self.asked = 0  # requests sent on to the model
        self.replayed = 0
        self._lock = threading.Lock()

    def answer(self, path: str, body: bytes) -> tuple[int, bytes]:
        key = hashlib.sha256(path.encode() + b"\n" + body).hexdigest()
        kept = self.answers / f"{key}.json"
        if kept.exists():
            with self._lock:
                self.replayed += 1
            return 200, kept.read_bytes()
        status, answer = self.forward("POST", path, body)
        with self._lock:
            self.asked += 1
        if status == 200:
            self.answers.mkdir(parents=True, exist_ok=True)
            (self.answers / f"{key}.request.json").write_bytes(body)
            kept.write_bytes(answer)
        return status, answer

    def forward(self, method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        request = urllib.request.Request(
            self.upstream + path, data=body, method=method, headers={"content-type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=UPSTREAM_TIMEOUT) as reply:
                return reply.status, reply.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def server(self, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
        """A server of this proxy on `port` (0: any free port), not yet serving."""
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._send(*proxy.forward("GET", self.path, None))

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                self._send(*proxy.answer(self.path, body))

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return ThreadingHTTPServer((host, port), Handler)
