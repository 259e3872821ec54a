"""HTTP benchmark: the real `mnemo serve` process under concurrent clients, over loopback only.

The server runs as a subprocess on 127.0.0.1 with a fresh data dir, preloaded with memories; then
`clients` concurrent connections send searches for `seconds`, then adds for `seconds`. Every request loop is
bounded in time and stops by itself. Reported: throughput, latency percentiles, and errors (any non-2xx or
transport failure).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.corpus import HTTP_PRELOAD, HTTP_SEED, http_texts
from bench.engine import percentiles
from bench.model_speed import model_costs


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux /proc), 0 where that is not available."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process and of all its descendants still running (the worker processes of `--workers`)."""
    total = process_cpu_seconds(pid)
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return total
    return total + sum(tree_cpu_seconds(int(child)) for child in children)


def start_server(
    data_dir: Path, port: int, workers: int = 1, threads: int | None = None, extra_env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    mnemo = Path(sys.executable).with_name("mnemo")
    env = {**os.environ, "MNEMO_LOG_LEVEL": "warning", "JWT_SECRET": secrets.token_urlsafe(32), **(extra_env or {})}
    if threads is not None:
        env["MNEMO_HTTP_THREADS"] = str(threads)
    env.pop("AUTH_DISABLED", None)
    env.pop("MNEMO_AUTH_DISABLED", None)
    process = subprocess.Popen(
        [
            *(str(mnemo), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)),
            *("--workers", str(workers)),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    wait_until_answering(
        process, lambda: httpx.get(f"http://127.0.0.1:{port}/auth/setup-status", timeout=1).status_code == 200
    )
    return process


def wait_until_answering(process: subprocess.Popen[bytes], probe: Callable[[], bool], seconds: float = 120) -> None:
    """Until `probe()` says the server answers (an HTTP error: not yet); a RuntimeError with its stderr when the
    process exits first, and when `seconds` pass (the process then terminated)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if probe():
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {process.stderr.read().decode() if process.stderr else ''}")
        time.sleep(0.2)
    process.terminate()
    raise RuntimeError(f"the server did not answer within {seconds:.0f} s")


class Connection:
    """A minimal HTTP/1.1 keep-alive client for JSON requests: the load generator shares the server's two cores,
    so it must cost far less per request than a general-purpose client (httpx spends ~1.3 ms of CPU on each)."""

    def __init__(self, host: str, port: int, auth_header: str) -> None:
        self.host, self.port, self.auth_header = host, port, auth_header
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        payload = json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nhost: {self.host}\r\ncontent-type: application/json\r\n"
            f"{self.auth_header}\r\n"
            f"content-length: {len(payload)}\r\n\r\n"
        )
        self.writer.write(head.encode() + payload)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        length, chunked = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        if not chunked:
            return status, await self.reader.readexactly(length)
        data = b""
        while size := int((await self.reader.readline()).strip(), 16):
            data += await self.reader.readexactly(size + 2)
        await self.reader.readline()
        return status, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def _drive(
    base: str, auth_header: str, clients: int, *, seconds: float, make_request: Any, rng: random.Random
) -> dict[str, Any]:
    latencies: list[float] = []
    errors: list[str] = []
    host, port = base.removeprefix("http://").split(":")
    deadline = time.perf_counter() + seconds

    async def worker(worker_id: int) -> None:
        connection = Connection(host, int(port), auth_header)
        sequence = 0
        try:
            while time.perf_counter() < deadline:
                method, path, body = make_request(worker_id, sequence, rng)
                sequence += 1
                start = time.perf_counter()
                try:
                    status, data = await asyncio.wait_for(connection.request(method, path, body), 30)
                    if status >= 300:
                        errors.append(f"{status} {data[:200]!r}")
                except (OSError, ValueError, asyncio.IncompleteReadError, TimeoutError) as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                    connection.close()
                latencies.append((time.perf_counter() - start) * 1000)
        finally:
            connection.close()

    started = time.perf_counter()
    cpu_started = time.process_time()
    await asyncio.gather(*(worker(i) for i in range(clients)))
    elapsed = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "per_second": round(len(latencies) / elapsed, 1),
        "latency_ms": percentiles(latencies),
        "errors": len(errors),
        "first_errors": errors[:5],
        "seconds": round(elapsed, 1),
        "client_cpu_ms_per_request": round(1000 * (time.process_time() - cpu_started) / max(1, len(latencies)), 3),
    }


@dataclass(frozen=True)
class Surface:
    """The routes a benchmark drives: the self-hosted server's, or the platform API's (the mem0ai client's)."""

    name: str
    auth: str  # what the result records about authentication
    add_path: str
    search_path: str

    def search_body(self, user: str, question: str) -> dict[str, Any]:
        return {"query": question, "filters": {"user_id": user}, "top_k": 10}


SURFACES = {
    "selfhosted": Surface("selfhosted", "X-API-Key (a per-user m0sk_ key), request log on", "/memories", "/search"),
    "platform": Surface(
        "platform",
        "Authorization: Token (a project key made by mnemo platform bootstrap), request log on",
        "/v3/memories/add/",
        "/v3/memories/search/",
    ),
}


def selfhosted_credentials(client: httpx.Client) -> str:
    """Authentication stays on, as deployed: the first admin registers and makes a per-user API key."""
    admin = {"name": "Bench", "email": "bench@example.com", "password": secrets.token_urlsafe(16)}
    token = client.post("/auth/register", json=admin).raise_for_status().json()["access_token"]
    created = client.post("/api-keys", json={"label": "bench"}, headers={"Authorization": f"Bearer {token}"})
    return f"x-api-key: {created.raise_for_status().json()['key']}"


def platform_credentials(data_dir: Path) -> str:
    """A tenant started as an operator starts one (before the server runs): its project key."""
    mnemo = Path(sys.executable).with_name("mnemo")
    tenant = ["--email", "bench@example.com", "--org", "Bench", "--json"]
    done = subprocess.run(
        [str(mnemo), "platform", "bootstrap", "--data-dir", str(data_dir), *tenant],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return f"authorization: Token {json.loads(done.stdout)['api_key']}"


MODEL_SPEED_TEXTS = 1_000  # texts of each kind the model's speed is measured on, before the run and after


def run(
    clients: int = 16,
    *,
    seconds: float = 60.0,
    preload: int = HTTP_PRELOAD,
    surface: str = "selfhosted",
    workers: int = 2,
    threads: int = 3,
    server_env: dict[str, str] | None = None,
    model_speed: bool = True,
) -> dict[str, Any]:
    """`workers` server processes (`mnemo serve --workers`), each running at most `threads` requests' synchronous
    part at once (MNEMO_HTTP_THREADS): with the local embedder every request is CPU work, and on 2 cores 2-3 threads
    per process cost less CPU per request than the default 8 (made for adds that wait on an LLM). `server_env` is
    added to the server's environment (bench.http_split: a server without the model's run). `model_speed`: the
    model's cost per text on this machine (bench.model_speed) is measured before the server starts and after it
    stops, and recorded beside the throughput."""
    routes = SURFACES[surface]
    speed_before = model_costs(MODEL_SPEED_TEXTS) if model_speed else None
    corpus = http_texts(preload=preload)
    data_dir = Path(tempfile.mkdtemp(prefix="mnemo-http-bench-"))
    port = free_port()
    platform_auth = platform_credentials(data_dir) if surface == "platform" else None
    server = start_server(data_dir, port, workers, threads, server_env)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            auth_header = platform_auth or selfhosted_credentials(client)
            name, _, value = auth_header.partition(": ")
            client.headers[name] = value
            by_user: dict[str, list[str]] = {}
            for item in corpus.preloaded:
                by_user.setdefault(item.user_id, []).append(item.text)
            for user, texts in by_user.items():
                for start in range(0, len(texts), 100):
                    messages = [{"role": "user", "content": t} for t in texts[start : start + 100]]
                    client.post(
                        routes.add_path, json={"messages": messages, "user_id": user, "infer": False}
                    ).raise_for_status()
        questions = [(i.user_id, i.question) for i in corpus.preloaded]
        fresh = iter(corpus.fresh)

        def search(_worker: int, _n: int, rng: random.Random) -> tuple[str, str, dict[str, Any]]:
            user, question = rng.choice(questions)
            return "POST", routes.search_path, routes.search_body(user, question)

        def add(_worker: int, _n: int, _rng: random.Random) -> tuple[str, str, dict[str, Any]]:
            item = next(fresh)
            body = {"messages": [{"role": "user", "content": item.text}], "user_id": item.user_id, "infer": False}
            return "POST", routes.add_path, body

        rng = random.Random(HTTP_SEED)

        def measured(make_request: Any) -> dict[str, Any]:
            before = tree_cpu_seconds(server.pid)
            figures = asyncio.run(
                _drive(base, auth_header, clients, seconds=seconds, make_request=make_request, rng=rng)
            )
            spent = tree_cpu_seconds(server.pid) - before
            figures["server_cpu_ms_per_request"] = round(1000 * spent / max(1, figures["requests"]), 3)
            return figures

        result = {
            "surface": surface,
            "load_average_before": [round(x, 2) for x in os.getloadavg()],
            "clients": clients,
            "workers": workers,
            "threads_per_worker": threads,
            "preloaded": preload,
            "auth": routes.auth,
            "search": measured(search),
            "add": measured(add),
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    if speed_before is not None:
        result["model_alone_ms"] = {"before": speed_before, "after": model_costs(MODEL_SPEED_TEXTS)}
    return result
