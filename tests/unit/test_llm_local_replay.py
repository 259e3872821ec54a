"""The recording proxy of bench/llm_local/replay.py, in front of a loopback server that counts what it is asked."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from bench.llm_local.replay import ReplayProxy


class Upstream:
    """Answers each POST with a new number (so a replayed answer is told from a fresh one); a body `"fail"` is a
    500."""

    def __init__(self) -> None:
        self.posts = 0
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._send(200, b'{"data": []}')

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                upstream.posts += 1
                status = 500 if body == b'"fail"' else 200
                self._send(status, json.dumps({"n": upstream.posts}).encode())

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Upstream, ReplayProxy, str]]:
    upstream = Upstream()
    proxy = ReplayProxy(f"http://127.0.0.1:{upstream.server.server_port}", tmp_path / "answers")
    server = proxy.server(0)
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (upstream.server, server)]
    for thread in threads:
        thread.start()
    yield upstream, proxy, f"http://127.0.0.1:{server.server_port}"
    for s in (upstream.server, server):
        s.shutdown()
        s.server_close()


def post(url: str, body: bytes) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method="POST", headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_a_request_asked_again_is_answered_from_the_cache(served: tuple[Upstream, ReplayProxy, str]) -> None:
    upstream, proxy, url = served
    chat = url + "/v1/chat/completions"

    first = post(chat, b'{"messages": [1]}')
    again = post(chat, b'{"messages": [1]}')
    other = post(chat, b'{"messages": [2]}')

    assert first == again == (200, b'{"n": 1}')
    assert other == (200, b'{"n": 2}')
    assert (upstream.posts, proxy.asked, proxy.replayed) == (2, 2, 1)
    assert sorted(p.suffixes[-2:] == [".request", ".json"] for p in proxy.answers.iterdir()) == [
        False,
        False,
        True,
        True,
    ]


def test_an_error_is_passed_on_and_asked_again(served: tuple[Upstream, ReplayProxy, str]) -> None:
    upstream, _, url = served

    assert post(url + "/v1/chat/completions", b'"fail"')[0] == 500
    assert post(url + "/v1/chat/completions", b'"fail"')[0] == 500
    assert upstream.posts == 2


def test_a_get_is_forwarded(served: tuple[Upstream, ReplayProxy, str]) -> None:
    _, _, url = served
    with urllib.request.urlopen(url + "/v1/models", timeout=10) as reply:
        assert json.loads(reply.read()) == {"data": []}
