"""End to end: many concurrent requests, a restart on the same data dir, and the real `mnemo serve` command."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.ports.providers import ProviderCatalog
from mnemo.services.commands import AddCommand, Message, SearchCommand
from mnemo.settings import Settings
from tests.support.waits import HTTP_TIMEOUT, seconds

THREADS = 8
OPS_PER_THREAD = 25
SERVICE_ADDS_PER_THREAD = 10
MNEMO = Path(sys.executable).with_name("mnemo")


def ok(response: Any) -> Any:
    assert response.status_code == 200, (response.request.method, response.request.url, response.text)
    return response.json()


# ---- (a) concurrency ---------------------------------------------------------------------------------------


@dataclass
class Ledger:
    """What the threads were told was done, kept under one lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    errors: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # id -> last acknowledged text
    owners: dict[str, str] = field(default_factory=dict)  # id -> user
    updated: set[str] = field(default_factory=set)
    shared_results: list[dict[str, Any]] = field(default_factory=list)

    def fail(self, message: str) -> None:
        with self.lock:
            self.errors.append(message)

    def acknowledged(self, memory_id: str, text: str, user: str | None = None) -> None:
        with self.lock:
            self.texts[memory_id] = text
            if user is None:
                self.updated.add(memory_id)
            else:
                self.owners[memory_id] = user


class MixedWorker:
    """One thread's operations: adds, searches, reads and updates of its user's memories, each checked at once."""

    def __init__(self, client: TestClient, ledger: Ledger, n: int) -> None:
        self.client = client
        self.ledger = ledger
        self.n = n
        self.user = f"user-{n % 4}"
        self.mine: list[str] = []

    def run(self, start: threading.Barrier) -> None:
        start.wait(timeout=seconds(30))
        try:
            self.add_the_shared_sentence()
            for j in range(OPS_PER_THREAD):
                kind = j % 5
                if kind in (0, 1) or not self.mine:
                    self.add(j)
                elif kind == 2:
                    self.search_the_last()
                elif kind == 3:
                    self.read_the_last()
                else:
                    self.revise(j)
        except Exception as exc:  # collected and reported by the main thread
            self.ledger.fail(f"thread {self.n}: {type(exc).__name__}: {exc}")

    def add_the_shared_sentence(self) -> None:
        message = {"role": "user", "content": "Everyone on the team shares this exact sentence"}
        shared = ok(self.client.post("/memories", json={"messages": [message], "user_id": "shared", "infer": False}))
        with self.ledger.lock:
            self.ledger.shared_results.extend(shared["results"])

    def add(self, j: int) -> None:
        text = f"Thread {self.n} entry {j} mentions the token t{self.n}x{j}z"
        body = {"messages": [{"role": "user", "content": text}], "user_id": self.user, "infer": False}
        (result,) = ok(self.client.post("/memories", json=body))["results"]
        if result["event"] != "ADD" or result["memory"] != text:
            self.ledger.fail(f"add {text!r} gave {result}")
        self.mine.append(result["id"])
        self.ledger.acknowledged(result["id"], text, self.user)

    def search_the_last(self) -> None:
        token = self.ledger.texts[self.mine[-1]].rsplit(" ", 1)[-1]
        body = {"query": token, "filters": {"user_id": self.user}, "threshold": 0.0}
        results = ok(self.client.post("/search", json=body))["results"]
        if not results or results[0]["id"] != self.mine[-1]:
            self.ledger.fail(f"search {token!r} for {self.user} did not find {self.mine[-1]} first: {results[:2]}")
        if any(r["user_id"] != self.user for r in results):
            self.ledger.fail(f"search for {self.user} leaked another user's memory")

    def read_the_last(self) -> None:
        memory = ok(self.client.get(f"/memories/{self.mine[-1]}"))
        if memory["memory"] != self.ledger.texts[self.mine[-1]]:
            self.ledger.fail(f"get {self.mine[-1]} gave {memory['memory']!r}")
        listing = ok(self.client.get("/memories", params={"user_id": self.user, "top_k": 1000}))["results"]
        if not set(self.mine) <= {m["id"] for m in listing}:
            self.ledger.fail(f"list for {self.user} misses some of thread {self.n}'s memories")

    def revise(self, j: int) -> None:
        target = self.mine[len(self.mine) // 2]
        text = f"Thread {self.n} entry {j} revised the note to token r{self.n}x{j}z"
        ok(self.client.put(f"/memories/{target}", json={"text": text}))
        self.ledger.acknowledged(target, text)


def test_concurrent_mixed_requests_all_succeed_and_every_write_is_kept(
    client: TestClient, container: Container
) -> None:
    """8 threads x 25 operations: adds (infer=false), searches, gets, lists and updates, two threads per user.

    Each thread checks that it reads its own writes at once; afterwards every acknowledged write must be
    present with its last acknowledged text, and the search index must agree with the store.
    """
    start = threading.Barrier(THREADS)
    ledger = Ledger()
    threads = [threading.Thread(target=MixedWorker(client, ledger, n).run, args=(start,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds(120))
    assert not any(t.is_alive() for t in threads), "a worker hung"

    assert ledger.errors == []
    adds_per_thread = sum(1 for j in range(OPS_PER_THREAD) if j % 5 in (0, 1))
    assert len(ledger.texts) == THREADS * adds_per_thread
    assert ledger.updated

    # the exact duplicate sent by all threads at once was stored once
    shared_results = ledger.shared_results
    assert len(shared_results) == THREADS
    assert sorted(r["event"] for r in shared_results) == ["ADD"] + ["NONE"] * (THREADS - 1)
    assert len({r["id"] for r in shared_results}) == 1
    assert len(ok(client.get("/memories", params={"user_id": "shared"}))["results"]) == 1
    every_acknowledged_write_is_kept(client, container, ledger)


def every_acknowledged_write_is_kept(client: TestClient, container: Container, ledger: Ledger) -> None:
    """Every acknowledged write is there, with its last acknowledged text, and nothing else; the index agrees."""
    texts, owners = ledger.texts, ledger.owners
    for user in {f"user-{n % 4}" for n in range(THREADS)}:
        listing = ok(client.get("/memories", params={"user_id": user, "top_k": 1000}))["results"]
        expected = {i: t for i, t in texts.items() if owners[i] == user}
        assert {m["id"]: m["memory"] for m in listing} == expected
    for memory_id in ledger.updated:
        events = [h["event"] for h in ok(client.get(f"/memories/{memory_id}/history"))]
        assert events[0] == "ADD"
        assert set(events[1:]) == {"UPDATE"}
        # the index holds the revised text: its token finds it
        token = texts[memory_id].rsplit(" ", 1)[-1]
        body = {"query": token, "filters": {"user_id": owners[memory_id]}, "threshold": 0.0, "top_k": 1}
        assert [r["id"] for r in ok(client.post("/search", json=body))["results"]] == [memory_id]

    assert container.memory_service.index.count() == len(texts) + 1  # + the shared sentence
    assert container.memory_service.count(f.parse({"user_id": "*"})) == len(texts) + 1


def test_concurrent_adds_directly_against_the_service(container: Container) -> None:
    """The same, one layer down: 8 threads each adding 10 memories in batches of 5 through MemoryService."""
    service = container.memory_service
    start = threading.Barrier(THREADS)
    errors: list[BaseException] = []
    stored: dict[str, str] = {}
    lock = threading.Lock()

    def worker(n: int) -> None:
        start.wait(timeout=seconds(30))
        try:
            for j in range(0, SERVICE_ADDS_PER_THREAD, 5):
                batch = [f"Service thread {n} item {k} code s{n}y{k}q" for k in range(j, j + 5)]
                results = service.add(
                    AddCommand(
                        messages=[Message("user", t) for t in batch], scope=Scope(agent_id=f"agent-{n}"), infer=False
                    )
                )
                with lock:
                    stored.update({r.record.id: r.record.text for r in results})
                hits = service.search(
                    SearchCommand(query=f"s{n}y{j}q", filters=f.parse({"agent_id": f"agent-{n}"}), threshold=0.0)
                )
                assert hits[0].record.text == batch[0]
        except BaseException as exc:
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds(120))
    assert errors == []
    assert len(stored) == THREADS * SERVICE_ADDS_PER_THREAD
    everything = service.get_all(f.parse({"agent_id": "*"}), top_k=None)
    assert {r.id: r.text for r in everything} == stored


# ---- (b) restart -----------------------------------------------------------------------------------------


@contextmanager
def running(data_dir: Path, registry: ProviderCatalog) -> Iterator[TestClient]:
    built = build_container(Settings(data_dir=data_dir, auth_disabled=True), registry)
    try:
        with TestClient(create_app(built)) as test_client:
            yield test_client
    finally:
        built.close()


def test_memories_history_and_search_survive_a_restart(data_dir: Path, registry: ProviderCatalog) -> None:
    def search(client: TestClient, query: str, **body: Any) -> list[dict[str, Any]]:
        payload = {"query": query, "filters": {"user_id": "alice"}, "explain": True, **body}
        results: list[dict[str, Any]] = ok(client.post("/search", json=payload))["results"]
        return results

    queries = ("Which animal companion does this person own?", "Quokkaberry42", "Montreal", "What instrument?")
    with running(data_dir, registry) as client:
        verbatim = ok(
            client.post(
                "/memories",
                json={
                    "messages": [
                        {"role": "user", "content": "My dog Rex loves chasing tennis balls in the park."},
                        {"role": "user", "content": "The wifi password at the cabin is Quokkaberry42."},
                        {"role": "user", "content": "I am learning to play the cello on weekends."},
                        {"role": "user", "content": "Delete me: my old locker code is Zanzibar77."},
                    ],
                    "user_id": "alice",
                    "infer": False,
                    "metadata": {"source": "chat"},
                },
            )
        )["results"]
        dog, wifi, cello, doomed = (r["id"] for r in verbatim)
        inferred = ok(
            client.post(
                "/memories",
                json={
                    "messages": [{"role": "user", "content": "Hi! My sister lives in Montreal with her two kids."}],
                    "user_id": "alice",
                },
            )
        )["results"]
        (sister,) = (r["id"] for r in inferred)
        ok(client.put(f"/memories/{cello}", json={"text": "I am learning to play the cello and the viola."}))
        ok(client.put(f"/memories/{wifi}", json={"metadata": {"place": "cabin"}}))
        ok(client.delete(f"/memories/{doomed}"))
        ok(client.post("/memories", json={"messages": [{"role": "user", "content": "x y z"}], "user_id": "bob"}))
        ok(client.put(f"/memories/{dog}", json={"expiration_date": "2000-01-01"}))

        before_list = ok(client.get("/memories", params={"user_id": "alice", "show_expired": True}))["results"]
        before_history = {i: ok(client.get(f"/memories/{i}/history")) for i in (dog, wifi, cello, doomed, sister)}
        before_search = {q: search(client, q, show_expired=True) for q in queries}
        before_get = {i: ok(client.get(f"/memories/{i}")) for i in (dog, wifi, cello, sister)}

    with running(data_dir, registry) as client:
        assert ok(client.get("/memories", params={"user_id": "alice", "show_expired": True}))["results"] == before_list
        assert {i: ok(client.get(f"/memories/{i}/history")) for i in before_history} == before_history
        assert {i: ok(client.get(f"/memories/{i}")) for i in before_get} == before_get
        for query, results in before_search.items():
            again = search(client, query, show_expired=True)
            assert [r["id"] for r in again] == [r["id"] for r in results], query
            assert [r["score"] for r in again] == pytest.approx([r["score"] for r in results], abs=1e-5)

        # semantic, keyword and updated text all still searchable; deletion and expiry still hold
        assert search(client, "Quokkaberry42")[0]["id"] == wifi
        assert search(client, "Quokkaberry42")[0]["score_details"]["bm25_score"] > 0
        assert search(client, "viola")[0]["id"] == cello
        assert search(client, "Which city is the sibling based?")[0]["id"] == sister
        assert client.get(f"/memories/{doomed}").status_code == 404
        assert doomed not in {r["id"] for r in search(client, "Zanzibar77 locker code", threshold=0.0)}
        assert dog not in {r["id"] for r in search(client, "Which animal companion does this person own?")}
        assert search(client, "Which animal companion does this person own?", show_expired=True)[0]["id"] == dog
        assert ok(client.get(f"/memories/{wifi}"))["metadata"] == {"source": "chat", "place": "cabin"}
        assert [h["event"] for h in ok(client.get(f"/memories/{cello}/history"))] == ["ADD", "UPDATE"]
        assert [h["event"] for h in ok(client.get(f"/memories/{doomed}/history"))] == ["ADD", "DELETE"]

        # de-duplication sees the memories stored before the restart
        (again,) = ok(
            client.post(
                "/memories",
                json={
                    "messages": [{"role": "user", "content": "The wifi password at the cabin is Quokkaberry42."}],
                    "user_id": "alice",
                    "infer": False,
                },
            )
        )["results"]
        assert (again["event"], again["id"]) == ("NONE", wifi)
        near = ok(
            client.post(
                "/memories",
                json={
                    "messages": [{"role": "user", "content": "My sister lives in Montreal with her two children."}],
                    "user_id": "alice",
                },
            )
        )["results"]
        assert near == []

        # and new writes work and survive the next restart
        (fresh,) = ok(
            client.post(
                "/memories",
                json={"messages": [{"role": "user", "content": "I bake sourdough on Sundays"}], "user_id": "alice"},
            )
        )["results"]

    with running(data_dir, registry) as client:
        assert search(client, "bread baking")[0]["id"] == fresh["id"]
        assert len(ok(client.get("/memories", params={"user_id": "alice"}))["results"]) == 4


# ---- (c) the real command ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


SERVED: dict[str, int] = {}  # base URL -> the pid of the `mnemo serve` answering there


@contextmanager
def serving(data_dir: Path, log: Path, **extra_env: str) -> Iterator[str]:
    """Run `mnemo serve` on a free loopback port until the block ends; yields its base URL. Authentication is
    disabled unless `extra_env` says otherwise (e.g. AUTH_DISABLED="false")."""
    port = free_port()
    outer_auth = ("JWT_SECRET", "ADMIN_API_KEY", "AUTH_DISABLED", "REQUEST_LOG_RETENTION_DAYS")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_") and k not in outer_auth}
    env["MNEMO_LOG_LEVEL"] = "warning"
    env["AUTH_DISABLED"] = "true"
    env.update(extra_env)
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(MNEMO), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    base = f"http://127.0.0.1:{port}"
    SERVED[base] = process.pid
    try:
        deadline = time.monotonic() + seconds(60)
        while True:
            assert process.poll() is None, f"mnemo serve exited with {process.returncode}:\n{log.read_text()}"
            try:
                if httpx.get(f"{base}/docs", timeout=seconds(2)).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"mnemo serve did not answer within 60 s:\n{log.read_text()}"
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=seconds(15))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=seconds(15))


def test_mnemo_serve_answers_over_real_http(tmp_path: Path) -> None:
    data_dir = tmp_path / "served"
    log = tmp_path / "serve.log"
    with serving(data_dir, log) as base, httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http:
        root = http.get("/", follow_redirects=False)
        assert root.status_code == 307
        assert root.headers["location"] == "/docs"

        added = http.post(
            "/memories",
            json={
                "messages": [
                    {"role": "user", "content": "Hello there!"},
                    {"role": "user", "content": "My dog Rex loves chasing tennis balls in the park."},
                ],
                "user_id": "alice",
            },
            headers={"X-Request-ID": "smoke-1"},
        )
        assert added.headers["x-request-id"] == "smoke-1"
        (memory,) = ok(added)["results"]
        assert memory["memory"] == "My dog Rex loves chasing tennis balls in the park."

        found = http.post(
            "/search", json={"query": "Which animal companion does this person own?", "filters": {"user_id": "alice"}}
        )
        assert [r["id"] for r in ok(found)["results"]] == [memory["id"]]
        assert "x-request-id" in found.headers
        assert ok(http.get(f"/memories/{memory['id']}"))["user_id"] == "alice"

        missing = http.get("/memories/00000000-0000-0000-0000-000000000000")
        assert missing.status_code == 404
        assert "x-request-id" in missing.headers
        bad = http.post("/memories", content=b"{oops", headers={"content-type": "application/json"})
        assert bad.status_code == 422

    assert (data_dir / "mnemo.sqlite3").is_file()

    # a second process on the same data dir sees what the first stored
    with serving(data_dir, log) as base, httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http:
        again = ok(http.post("/search", json={"query": "tennis balls", "filters": {"user_id": "alice"}}))
        assert [r["id"] for r in again["results"]] == [memory["id"]]


def test_mnemo_serve_help_lists_its_options() -> None:
    result = subprocess.run(
        [str(MNEMO), "serve", "--help"], capture_output=True, text=True, timeout=seconds(60), check=False
    )
    assert result.returncode == 0, result.stderr
    for option in ("--host", "--port", "--data-dir", "--workers"):
        assert option in result.stdout


@pytest.mark.parametrize("inline", ["true", "false"])
def test_mnemo_serve_with_two_workers_serves_one_consistent_store(tmp_path: Path, inline: str) -> None:
    """`--workers 2` (here MNEMO_HTTP_WORKERS): two processes, each with the index in memory; whichever a connection
    reaches, it reads what the other wrote, and a delete made through one is gone from both. The same whether the
    memory read routes run in the event loop (MNEMO_HTTP_INLINE=true) or in worker threads (false)."""
    data_dir = tmp_path / "served"
    log = tmp_path / "serve.log"

    def on_fresh_connections(base: str, act: Any, times: int = 12) -> list[Any]:
        answers = []
        for _ in range(times):  # a new connection each time: the kernel hands them to either process
            with httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http:
                answers.append(act(http))
        return answers

    def found(http: httpx.Client) -> list[str]:
        body = ok(http.post("/search", json={"query": "beekeeping", "filters": {"user_id": "alice"}}))
        return [r["memory"] for r in body["results"]]

    with serving(data_dir, log, MNEMO_HTTP_WORKERS="2", MNEMO_HTTP_INLINE=inline) as base:
        workers = Path(f"/proc/{SERVED[base]}/task/{SERVED[base]}/children").read_text().split()
        assert len(workers) >= 2  # the two workers (and multiprocessing's resource tracker)
        texts = []
        for word in ["three", "four", "five", "six"]:
            with httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http:
                said = [{"role": "user", "content": f"I keep {word} hives of bees."}]
                body = {"messages": said, "user_id": "alice", "infer": False}
                texts.append(ok(http.post("/memories", json=body))["results"][0]["memory"])
        assert all(sorted(hits) == sorted(texts) for hits in on_fresh_connections(base, found))

        with httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http:
            memories = ok(http.get("/memories", params={"user_id": "alice"}))["results"]
            first = next(m for m in memories if "three" in m["memory"])
            ok(http.put(f"/memories/{first['id']}", json={"text": "I keep thirty hives of bees now."}))
        reads = on_fresh_connections(base, lambda http: ok(http.get(f"/memories/{first['id']}"))["memory"])
        assert set(reads) == {"I keep thirty hives of bees now."}

        with httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http:
            assert http.delete(f"/memories/{first['id']}").status_code == 200
        gone = on_fresh_connections(base, lambda http: http.get(f"/memories/{first['id']}").status_code)
        assert set(gone) == {404}
        assert all(not any("thirty" in text for text in hits) for hits in on_fresh_connections(base, found))


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="CPU affinity is a Linux interface")
@pytest.mark.parametrize("pin", ["true", "false"])
def test_mnemo_serve_keeps_each_worker_on_a_cpu_of_its_own_when_pinned(tmp_path: Path, pin: str) -> None:
    """MNEMO_PIN_WORKERS=true: worker i runs on the i-th CPU it may use (round again past the last); false: wherever
    the kernel puts it (the CPUs the server was started with). Each still serves."""
    allowed = sorted(os.sched_getaffinity(0))
    with serving(tmp_path / "served", tmp_path / "serve.log", MNEMO_HTTP_WORKERS="2", MNEMO_PIN_WORKERS=pin) as base:
        expected = sorted([(allowed[0],), (allowed[1 % len(allowed)],)] if pin == "true" else [tuple(allowed)] * 2)
        # A worker is kept on its CPU before it starts serving, so once both listen their CPUs are final.
        cpus = sorted(tuple(sorted(os.sched_getaffinity(pid))) for pid in _serving_workers(base))
        assert cpus == expected
        for _ in range(6):  # new connections, which the kernel hands to either worker
            with httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http:
                assert (
                    ok(http.post("/search", json={"query": "bees", "filters": {"user_id": "alice"}}))["results"] == []
                )


def _serving_workers(base: str, count: int = 2, timeout: float = 60) -> list[int]:
    """The workers of a served `mnemo serve --workers`, once `count` of them listen on its port. `serving` returns when
    one worker answers; another may still be starting (building its container), and until it listens the kernel
    gives it no connection, and the supervisor counts its death as a failure to start."""
    port = int(base.rsplit(":", 1)[1])
    deadline = time.monotonic() + seconds(timeout)
    while True:
        workers = _workers_of(base)
        if len(workers) == count and all(_sockets_of(pid, port, "0A") for pid in workers):  # 0A: LISTEN
            return workers
        assert time.monotonic() < deadline, (
            f"{count} workers did not all listen within {seconds(timeout):.0f} s: {workers}"
        )
        time.sleep(0.2)


def _connections_of(pid: int, port: int) -> int:
    """Established TCP connections to `port` the process holds (Linux /proc)."""
    return _sockets_of(pid, port, "01")  # 01: ESTABLISHED


def _sockets_of(pid: int, port: int, state: str) -> int:
    """TCP sockets on local `port` in this state (/proc/net/tcp's hex code) that the process holds (Linux /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    held = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == state and fields[9] in inodes:
                held += 1
    return held


def _workers_of(base: str) -> list[int]:
    """The worker processes of a served `mnemo serve --workers`: its children but multiprocessing's resource tracker."""
    parent = SERVED[base]
    children = [int(c) for c in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()]
    return [c for c in children if "resource_tracker" not in _command_line(c)]


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_the_workers_share_keep_alive_connections(tmp_path: Path) -> None:
    """Each worker accepts on a socket of its own (SO_REUSEPORT): sixteen clients connecting at once are spread over
    the two processes, not all taken by whichever woke first."""
    with serving(tmp_path / "served", tmp_path / "serve.log", MNEMO_HTTP_WORKERS="2") as base:
        port = int(base.rsplit(":", 1)[1])
        workers = _serving_workers(base)
        clients = [httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) for _ in range(16)]
        try:
            for client in clients:
                assert client.get("/memories", params={"user_id": "alice"}).status_code == 200
            held = [_connections_of(pid, port) for pid in workers]
            assert sum(held) == 16
            assert min(held) >= 1  # all 16 on one socket by chance: 2 in 65,536
        finally:
            for client in clients:
                client.close()


def test_a_worker_that_dies_is_replaced(tmp_path: Path) -> None:
    with serving(tmp_path / "served", tmp_path / "serve.log", MNEMO_HTTP_WORKERS="2") as base:
        before = _serving_workers(base)
        os.kill(before[0], signal.SIGKILL)
        deadline = time.monotonic() + seconds(60)
        while True:
            now_running = _workers_of(base)
            if len(now_running) == 2 and before[0] not in now_running:
                break
            assert time.monotonic() < deadline, f"no worker replaced the killed one: {now_running}"
            time.sleep(0.2)
        for _ in range(8):  # fresh connections reach either worker, the new one included
            with httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http:
                said = [{"role": "user", "content": "I keep bees."}]
                ok(http.post("/memories", json={"messages": said, "user_id": "alice", "infer": False}))


def test_workers_refuse_a_port_another_server_holds(tmp_path: Path) -> None:
    """A second `mnemo serve --workers 2` on the port of a running one exits with a message: its SO_REUSEPORT
    sockets would otherwise have joined the first's and taken a share of its connections."""
    with serving(tmp_path / "first", tmp_path / "first.log", MNEMO_HTTP_WORKERS="2") as base:
        port = base.rsplit(":", 1)[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
        env.update({"AUTH_DISABLED": "true", "MNEMO_HTTP_WORKERS": "2"})
        second = subprocess.run(
            [str(MNEMO), "serve", "--host", "127.0.0.1", "--port", port, "--data-dir", str(tmp_path / "second")],
            capture_output=True,
            text=True,
            env=env,
            timeout=seconds(60),
            check=False,
        )
        assert second.returncode == 1
        assert f"cannot serve on 127.0.0.1:{port}" in second.stderr and "in use" in second.stderr
        assert httpx.get(f"{base}/memories", params={"user_id": "alice"}, timeout=HTTP_TIMEOUT).status_code == 200
