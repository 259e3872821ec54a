"""HTTP benchmark: the real `mnemo serve` process under concurrent clients, over loopback only.

The server runs as a subprocess on 127.0.0.1 with a fresh data dir, preloaded with memories; then
`clients` concurrent connections send searches for `seconds`, then adds for `seconds`. Every request loop is
bounded in time and stops by itself. Reported: throughput, latency percentiles, and errors (any non-2xx or
transport failure).
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.corpus import generate
from bench.engine import percentiles


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    mnemo = Path(sys.executable).with_name("mnemo")
    env = {**os.environ, "MNEMO_LOG_LEVEL": "warning"}
    process = subprocess.Popen(
        [str(mnemo), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/configure/providers", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
        if process.poll() is not None:
            raise RuntimeError(f"mnemo serve exited: {process.stderr.read().decode() if process.stderr else ''}")
    process.terminate()
    raise RuntimeError("mnemo serve did not answer within 120 s")


async def _drive(base: str, clients: int, seconds: float, make_request: Any, rng: random.Random) -> dict[str, Any]:
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:

        async def worker(worker_id: int) -> None:
            sequence = 0
            while time.perf_counter() < deadline:
                method, path, body = make_request(worker_id, sequence, rng)
                sequence += 1
                start = time.perf_counter()
                try:
                    response = await client.request(method, path, json=body)
                    if response.status_code >= 300:
                        errors.append(f"{response.status_code} {response.text[:200]}")
                except httpx.HTTPError as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                latencies.append((time.perf_counter() - start) * 1000)

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        elapsed = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "per_second": round(len(latencies) / elapsed, 1),
        "latency_ms": percentiles(latencies),
        "errors": len(errors),
        "first_errors": errors[:5],
        "seconds": round(elapsed, 1),
    }


def run(
    clients: int = 16, seconds: float = 60.0, preload: int = 5_000, users: int = 100, seed: int = 5
) -> dict[str, Any]:
    items = generate(preload + 200_000, users, seed=seed)
    data_dir = Path(tempfile.mkdtemp(prefix="mnemo-http-bench-"))
    port = free_port()
    server = start_server(data_dir, port)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            by_user: dict[str, list[str]] = {}
            for item in items[:preload]:
                by_user.setdefault(item.user_id, []).append(item.text)
            for user, texts in by_user.items():
                for start in range(0, len(texts), 100):
                    messages = [{"role": "user", "content": t} for t in texts[start : start + 100]]
                    client.post("/memories", json={"messages": messages, "user_id": user, "infer": False})
        questions = [(i.user_id, i.question) for i in items[:preload]]
        fresh = iter(items[preload:])

        def search(_worker: int, _n: int, rng: random.Random) -> tuple[str, str, dict[str, Any]]:
            user, question = rng.choice(questions)
            return "POST", "/search", {"query": question, "filters": {"user_id": user}, "top_k": 10}

        def add(_worker: int, _n: int, _rng: random.Random) -> tuple[str, str, dict[str, Any]]:
            item = next(fresh)
            body = {"messages": [{"role": "user", "content": item.text}], "user_id": item.user_id, "infer": False}
            return "POST", "/memories", body

        rng = random.Random(seed)
        result = {
            "clients": clients,
            "preloaded": preload,
            "search": asyncio.run(_drive(base, clients, seconds, search, rng)),
            "add": asyncio.run(_drive(base, clients, seconds, add, rng)),
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    return result
