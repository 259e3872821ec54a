"""The floor under the HTTP benchmark: what this machine serves when a request does nothing but the unavoidable.

`bench.http_load` drives the real `mnemo serve`. This drives, with the same load generator (16 keep-alive clients,
the same questions and texts, `seconds` each), a bare ASGI app under uvicorn with `workers` processes, in which a
request does only:

- `http`: read the JSON body, answer a small JSON (uvicorn + httptools + the loopback: the HTTP floor);
- `embed`: the same plus one embedding of the query by mnemo's default embedder (all-MiniLM-L6-v2, int8, ONNX
  Runtime), run in the event loop (no thread hand-off): the floor of a search, which has to embed its query;
- `embed_insert`: the same plus one committed SQLite insert of the text and its vector into one WAL file shared by
  the processes (`synchronous=NORMAL`, as mnemo's store): the floor of a durable add, which has to embed its text
  and commit it.

No authentication, no request log, no index, no ranking, no response model: whatever mnemo does more is above these
figures. If the floor itself is under a target, no server doing that work on this machine meets the target.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.corpus import HTTP_SEED, http_texts
from bench.http_load import _drive, free_port, tree_cpu_seconds, wait_until_answering

MODES = ("http", "embed", "embed_insert")
_MODE = "MNEMO_FLOOR_MODE"
_DB = "MNEMO_FLOOR_DB"

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def floor_app() -> Callable[[dict[str, Any], Receive, Send], Awaitable[None]]:
    """The ASGI app of one worker process (uvicorn's factory): what it does per request is $MNEMO_FLOOR_MODE."""
    mode = os.environ.get(_MODE, "http")
    embed: Callable[[str], np.ndarray] | None = None
    db: sqlite3.Connection | None = None
    turns = -1
    if mode != "http":
        from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder

        embedder = LocalMiniLMEmbedder()

        def embed(text: str) -> np.ndarray:
            return np.asarray(embedder.embed([text])[0], dtype=np.float32)

    if mode == "embed_insert":
        db = sqlite3.connect(os.environ[_DB], isolation_level=None, timeout=30.0, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE IF NOT EXISTS memories (id TEXT PRIMARY KEY, text TEXT NOT NULL, vector BLOB)")
        turns = os.open(os.environ[_DB], os.O_RDONLY)  # the processes take turns at writing, as mnemo's do

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        payload = json.loads(body)
        answer: dict[str, Any] = {"ok": True}
        if embed is not None:
            text = payload.get("query") or payload["messages"][0]["content"]
            vector = embed(text)
            answer["dimension"] = len(vector)
            if db is not None:
                answer["id"] = memory_id = str(uuid.uuid4())
                fcntl.flock(turns, fcntl.LOCK_EX)
                try:
                    db.execute("BEGIN IMMEDIATE")
                    db.execute("INSERT INTO memories VALUES (?, ?, ?)", (memory_id, text, vector.tobytes()))
                    db.execute("COMMIT")
                finally:
                    fcntl.flock(turns, fcntl.LOCK_UN)
        out = json.dumps(answer).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(out)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": out})

    return app


def _start(mode: str, port: int, workers: int, data_dir: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, _MODE: mode, _DB: str(data_dir / "floor.sqlite3")}
    command = [
        *(sys.executable, "-m", "uvicorn", "bench.http_floor:floor_app", "--factory"),
        *("--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)),
        *("--log-level", "warning", "--no-access-log"),
    ]
    root = Path(__file__).resolve().parent.parent
    process = subprocess.Popen(command, env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def warmed_up() -> bool:
        # the first answer: a worker has loaded its model; a few more reach the other processes too
        for _ in range(1 + 4 * workers):
            httpx.post(f"http://127.0.0.1:{port}/", json={"query": "warm up"}, timeout=30).raise_for_status()
        return True

    wait_until_answering(process, warmed_up)
    return process


def run(clients: int = 16, *, seconds: float = 30.0, workers: int = 2) -> dict[str, Any]:
    corpus = http_texts()
    questions = [i.question for i in corpus.preloaded]
    fresh = iter(corpus.fresh)

    def search(_worker: int, _n: int, rng: random.Random) -> tuple[str, str, dict[str, Any]]:
        return "POST", "/", {"query": rng.choice(questions), "top_k": 10}

    def add(_worker: int, _n: int, _rng: random.Random) -> tuple[str, str, dict[str, Any]]:
        return "POST", "/", {"messages": [{"role": "user", "content": next(fresh).text}], "infer": False}

    result: dict[str, Any] = {
        "clients": clients,
        "workers": workers,
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }
    for mode in MODES:
        data_dir = Path(tempfile.mkdtemp(prefix="mnemo-floor-"))
        port = free_port()
        server = _start(mode, port, workers, data_dir)
        try:
            before = tree_cpu_seconds(server.pid)
            figures = asyncio.run(
                _drive(
                    f"http://127.0.0.1:{port}",
                    "x-floor: 1",
                    clients,
                    seconds=seconds,
                    make_request=add if mode == "embed_insert" else search,
                    rng=random.Random(HTTP_SEED),
                )
            )
            spent = tree_cpu_seconds(server.pid) - before
            figures["server_cpu_ms_per_request"] = round(1000 * spent / max(1, figures["requests"]), 3)
            result[mode] = figures
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return result
