"""Webhook benchmark: memory events from a real `mnemo serve` to three loopback receivers, healthy and through an
outage of the receivers.

The server runs as a subprocess on its own data dir, authentication on, with one platform tenant (made by
`mnemo platform bootstrap`), private URLs allowed (the receivers are on loopback) and a retry schedule compressed
so that an outage of minutes is retried through and the recovery is prompt (`RETRY_SCHEDULE`). Three webhooks of
the tenant's project subscribe to the memory events, each pointing at its own receiver (its own port) in a
separate process (`python -m bench.webhooks --receive 3`): a minimal asyncio HTTP/1.1 server that timestamps each
request on arrival, verifies its Standard Webhooks signature with the `standardwebhooks` package there and then
(as a real receiver would: the library also checks the timestamp against the clock) and answers 200; it can be
taken down (its listening sockets closed and every open connection reset, so that connections are refused) and
brought back on the same ports.

The events are memory adds: verbatim adds (`POST /v3/memories/add/`, `infer=false`) of `per_add` messages each,
one `memory_add` per memory and webhook. The phases:

1. *healthy, paced*: adds at a steady `pace` (events per second, below the delivery capacity); the latency of
   each delivery is its arrival at the receiver minus the event's `occurred_at` in the body (same machine clock).
2. *healthy, burst*: adds as fast as one client sends them; deliveries per second = the phase's deliveries over
   the time from its first add to its last arrival.
3. *outage*: the receivers down for `outage_seconds` while adds go on at a steady pace spread over the outage.
4. *after*: the receivers back; the remaining adds at `pace`; then a wait until every expected delivery arrived.

Checked at the end: every (webhook, memory) delivered, the repeats (same `webhook-id` received twice; the raw
count and none left after dropping them), no event delivered twice under different ids, every signature valid,
each webhook's sequence numbers increasing in arrival order (and 1..n without a gap) and its memories in the order
they were added, the delivery log's view (nothing dead or pending; the attempts), and the server's peak RSS
(VmHWM). The delivery log also says where a delivery's time went (`_breakdown`), and the CPU time of the server,
the receivers, this process and everything else on the machine is recorded (other processes may share it).

`python -m bench.webhooks [EVENTS [OUTAGE_SECONDS]]` prints the figures; `python -m bench.run --only webhooks`
records them (bench/results/webhooks.json).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import httpx

from bench.corpus import generate
from bench.engine import percentiles
from bench.http_load import free_port, process_cpu_seconds

MNEMO = Path(sys.executable).with_name("mnemo")
HOOKS = 3
EVENT_TYPES = ["memory_add", "memory_update", "memory_delete"]
# Seconds between the attempts of a failed delivery (each ±20%): 50 delays (the most the setting takes) spanning
# 540 s (432 s at the least with jitter), well over a 300 s outage; at most 15 s (18 with jitter) between the
# receivers' return and the next attempt.
RETRY_SCHEDULE = ",".join(["0.5", "1", "2", "4", "8", *["10"] * 30, *["15"] * 15])
RETRY_SCHEDULE_SHORT = "0.5, 1, 2, 4, 8, then 10 (×30), then 15 (×15)"
# The share of the events in each phase: healthy paced, healthy burst, outage, after.
SHARES = (0.2, 0.2, 0.3, 0.3)
OK = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok"


# ---- the receivers (their own process) ---------------------------------------------------------------------


class _Inbox:
    """The receivers: what they got (one record per request answered 200, in arrival order), their listening
    sockets and open connections, and their control commands."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.records: list[tuple[int, float, str, bool, str]] = []  # hook, arrived, webhook-id, valid, body
        self.ids: list[set[str]] = [set() for _ in range(count)]
        self.verifiers: list[Any] = [None] * count
        self.ports = [0] * count
        self.servers: list[asyncio.AbstractServer | None] = [None] * count
        self.connections: list[set[asyncio.Transport]] = [set() for _ in range(count)]
        self.up = False

    def receive(self, hook: int, arrived: float, headers: dict[str, str], body: bytes) -> None:
        """Record a request; its signature is verified now, as a receiver would (the library checks the
        timestamp against the clock too)."""
        from standardwebhooks.webhooks import WebhookVerificationError

        verifier = self.verifiers[hook]
        valid = False
        if verifier is not None:
            try:
                verifier.verify(body, headers, json_parse=False)
                valid = True
            except WebhookVerificationError:
                valid = False
        message_id = headers.get("webhook-id", "")
        self.records.append((hook, arrived, message_id, valid, body.decode()))
        self.ids[hook].add(message_id)

    async def start(self) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        self.up = True
        for hook in range(self.count):
            server = await loop.create_server(
                functools.partial(_Connection, self, hook), "127.0.0.1", self.ports[hook], reuse_address=True
            )
            self.servers[hook] = server
            self.ports[hook] = int(server.sockets[0].getsockname()[1])
        return {"at": time.time(), "ports": self.ports, "pid": os.getpid()}

    def stop(self) -> dict[str, Any]:
        """Down: no listener (a connection is refused at once) and every kept-alive connection reset."""
        self.up = False
        for hook in range(self.count):
            server = self.servers[hook]
            if server is not None:
                server.close()
            self.servers[hook] = None
            for transport in list(self.connections[hook]):
                transport.abort()
            self.connections[hook].clear()
        return {"at": time.time()}

    def set_secrets(self, secrets: list[str]) -> dict[str, Any]:
        from standardwebhooks import Webhook

        self.verifiers = [Webhook(s) for s in secrets]
        return {"ok": True}

    def counts(self) -> dict[str, Any]:
        return {"unique": [len(ids) for ids in self.ids], "total": len(self.records)}

    def dump(self, path: str) -> dict[str, Any]:
        with open(path, "w") as out:
            for record in self.records:
                out.write(json.dumps(record) + "\n")
        return {"records": len(self.records)}


class _Connection(asyncio.Protocol):
    """One connection to a receiver: HTTP/1.1 requests with a content-length, kept alive, each answered 200."""

    def __init__(self, inbox: _Inbox, hook: int) -> None:
        self.inbox, self.hook = inbox, hook
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if not self.inbox.up:
            transport.abort()
            return
        self.inbox.connections[self.hook].add(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.inbox.connections[self.hook].discard(self.transport)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (request := self._next_request()) is not None:
            arrived = time.time()
            if not self.inbox.up or self.transport is None:
                return
            headers, body = request
            self.inbox.receive(self.hook, arrived, headers, body)
            self.transport.write(OK)

    def _next_request(self) -> tuple[dict[str, str], bytes] | None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        headers = {}
        for line in bytes(self.buffer[:end]).decode("latin-1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length") or 0)
        if len(self.buffer) < end + 4 + length:
            return None
        body = bytes(self.buffer[end + 4 : end + 4 + length])
        del self.buffer[: end + 4 + length]
        return headers, body


async def _serve_receivers(count: int) -> None:
    """The receivers' process: `count` receivers, and commands on stdin (a JSON line each, answered on stdout)."""
    inbox = _Inbox(count)

    def answer(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    answer(await inbox.start())
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        command = json.loads(line)
        op = command.pop("op")
        if op == "up":
            answer(await inbox.start())
        elif op == "quit":
            answer(inbox.stop())
            return
        else:
            handlers: dict[str, Callable[..., dict[str, Any]]] = {
                "down": inbox.stop,
                "secrets": inbox.set_secrets,
                "counts": inbox.counts,
                "dump": inbox.dump,
            }
            answer(handlers[op](**command))


class Receivers:
    """The receivers' process and its control channel (a JSON line in, a JSON line out)."""

    def __init__(self, count: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.webhooks", "--receive", str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        hello = self._read()
        self.ports: list[int] = hello["ports"]
        self.pid = self.process.pid

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the receivers' process ended")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def command(self, op: str, **fields: Any) -> dict[str, Any]:
        stdin: IO[str] | None = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps({"op": op, **fields}) + "\n")
        stdin.flush()
        return self._read()

    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{port}/hooks/{hook}" for hook, port in enumerate(self.ports)]

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.command("quit")
                self.process.wait(timeout=10)
            except (OSError, RuntimeError, subprocess.TimeoutExpired, ValueError):
                self.process.kill()
                self.process.wait(timeout=10)


# ---- the server ---------------------------------------------------------------------------------------------


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    for name in ("AUTH_DISABLED", "JWT_SECRET", "ADMIN_API_KEY", "REQUEST_LOG_RETENTION_DAYS"):
        env.pop(name, None)
    env.update(
        JWT_SECRET=secrets.token_urlsafe(32),
        ADMIN_API_KEY=secrets.token_urlsafe(24),
        AUTH_DISABLED="false",
        MNEMO_LOG_LEVEL="warning",
        OPENBLAS_NUM_THREADS="1",
        MNEMO_WEBHOOK_ALLOW_PRIVATE_URLS="true",
        MNEMO_WEBHOOK_RETRY_SCHEDULE=RETRY_SCHEDULE,
    )
    return env


def bootstrap(data_dir: Path, env: dict[str, str]) -> tuple[str, str]:
    """A tenant made as an operator makes one (before the server runs): its project key and project id."""
    tenant = ["--email", "hooks@example.com", "--org", "Hooks", "--data-dir", str(data_dir)]
    done = subprocess.run(
        [str(MNEMO), "platform", "bootstrap", "--json", *tenant],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    made = json.loads(done.stdout)
    return str(made["api_key"]), str(made["project_id"])


def start_server(data_dir: Path, log: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(MNEMO), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"mnemo serve exited: {log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{base}/auth/setup-status", timeout=2).status_code == 200:
                return process, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("mnemo serve did not answer within 120 s")


def memory_status_mb(pid: int) -> dict[str, float]:
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = round(int(value.split()[0]) / 1024, 1)
    return found


# ---- the run ------------------------------------------------------------------------------------------------


PHASES = ("healthy_paced", "healthy_burst", "outage", "after")
BACKLOG_PHASES = PHASES[:3]  # the events made before the receivers came back


@dataclass(frozen=True)
class Added:
    """A memory added: its phase, when its add was sent and acknowledged (time.time())."""

    phase: str
    sent: float
    acknowledged: float


class Producer:
    """Sends the adds (one client, keep-alive) and remembers every memory added, in the order of the adds."""

    def __init__(self, client: httpx.Client, calls: list[tuple[str, list[str]]]) -> None:
        self.client = client
        self.calls = calls
        self.next = 0
        self.memories: dict[str, Added] = {}  # in the order they were added
        self.not_added = 0  # messages that made no new memory (none expected: every text is distinct)
        self.errors: list[str] = []
        self.phases: dict[str, dict[str, float]] = {}

    def send(self, phase: str, calls: int, per_second: float | None, until: float | None = None) -> None:
        """`calls` adds, at `per_second` (None: back to back); with `until` (time.time()), spread to end then."""
        started = time.time()
        if until is not None and calls:
            per_second = calls / max(until - started, 1e-3)
        for n in range(calls):
            if per_second:
                wait = started + n / per_second - time.time()
                if wait > 0:
                    time.sleep(wait)
            self._add(phase, *self.calls[self.next])
            self.next += 1
        if until is not None and until > time.time():
            time.sleep(until - time.time())
        self.phases[phase] = {
            "adds": calls,
            "events": sum(1 for a in self.memories.values() if a.phase == phase),
            "first_sent": started,
            "seconds": round(time.time() - started, 3),
        }

    def _add(self, phase: str, user: str, texts: list[str]) -> None:
        body = {"messages": [{"role": "user", "content": t} for t in texts], "user_id": user, "infer": False}
        sent = time.time()
        try:
            answer = self.client.post("/v3/memories/add/", json=body)
        except httpx.HTTPError as exc:
            self.errors.append(f"{type(exc).__name__}: {exc}")
            return
        acknowledged = time.time()
        if answer.status_code != 200:
            self.errors.append(f"{answer.status_code} {answer.text[:200]}")
            return
        added = [r["id"] for r in answer.json().get("results", []) if r.get("event") == "ADD"]
        self.not_added += len(texts) - len(added)
        for memory_id in added:
            self.memories[memory_id] = Added(phase, sent, acknowledged)

    def of_phases(self, phases: Sequence[str]) -> set[str]:
        return {memory for memory, added in self.memories.items() if added.phase in phases}


def _calls(events: int, per_add: int, users: int, seed: int) -> list[tuple[str, list[str]]]:
    """The adds: `per_add` distinct texts of one user each, the users in turn (as many users as fill whole adds)."""
    users = max(1, min(users, events // per_add))
    by_user: dict[str, list[str]] = {}
    for item in generate(events, users, seed=seed):
        by_user.setdefault(item.user_id, []).append(item.text)
    calls: list[tuple[str, list[str]]] = []
    round_ = 0
    while len(calls) * per_add < events:
        for user, texts in by_user.items():
            chunk = texts[round_ * per_add : (round_ + 1) * per_add]
            if chunk:
                calls.append((user, chunk))
        round_ += 1
    return calls


def _wait_for(receivers: Receivers, expected: int, deadline: float, poll: float = 0.25) -> dict[str, Any]:
    """Until each receiver has `expected` distinct deliveries (or the deadline); returns the last counts."""
    while True:
        counts = receivers.command("counts")
        if min(counts["unique"]) >= expected or time.time() > deadline:
            return counts
        time.sleep(poll)


@dataclass
class Timeline:
    """When the receivers went down and came back, when the last add was acknowledged, when all had arrived."""

    down_at: float = 0.0
    up_at: float = 0.0
    last_add: float = 0.0
    all_arrived_at: float = 0.0
    healthy_all_delivered: bool = False
    final_counts: dict[str, Any] = field(default_factory=dict)


def _drive(
    producer: Producer,
    receivers: Receivers,
    shares: Sequence[int],
    adds_per_second: float,
    outage_seconds: float,
    drain_deadline: float,
) -> Timeline:
    """The four phases (see the module's description)."""
    timeline = Timeline()
    producer.send(PHASES[0], shares[0], adds_per_second)
    _wait_for(receivers, len(producer.memories), time.time() + 120)
    producer.send(PHASES[1], shares[1], None)
    counts = _wait_for(receivers, len(producer.memories), time.time() + 600)
    timeline.healthy_all_delivered = min(counts["unique"]) >= len(producer.memories)
    timeline.down_at = receivers.command("down")["at"]
    producer.send(PHASES[2], shares[2], None, until=timeline.down_at + outage_seconds)
    timeline.up_at = receivers.command("up")["at"]
    producer.send(PHASES[3], shares[3], adds_per_second)
    timeline.last_add = time.time()
    timeline.final_counts = _wait_for(receivers, len(producer.memories), timeline.last_add + drain_deadline)
    timeline.all_arrived_at = time.time()
    time.sleep(2.0)  # a repeat still on its way arrives now
    return timeline


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine spent busy so far (Linux /proc/stat), 0 where that is not
    available."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class Usage:
    """CPU seconds of the server, the receivers and this process over the run, and of everything else the
    machine ran meanwhile (its busy time minus theirs: other processes share the two cores)."""

    def __init__(self, server_pid: int, receivers_pid: int) -> None:
        self.pids = {"server": server_pid, "receivers": receivers_pid}
        self.started = {name: process_cpu_seconds(pid) for name, pid in self.pids.items()}
        self.own = time.process_time()
        self.busy = machine_busy_seconds()
        self.at = time.monotonic()

    def spent(self) -> dict[str, float]:
        spent = {name: round(process_cpu_seconds(pid) - self.started[name], 1) for name, pid in self.pids.items()}
        spent["load_generator"] = round(time.process_time() - self.own, 1)
        busy = machine_busy_seconds() - self.busy
        spent["other_processes"] = round(max(0.0, busy - sum(spent.values())), 1)
        spent["machine_busy"] = round(busy, 1)
        spent["machine_capacity"] = round((time.monotonic() - self.at) * (os.cpu_count() or 1), 1)
        return spent


def _create_webhooks(client: httpx.Client, project_id: str, urls: list[str]) -> list[dict[str, Any]]:
    hooks = []
    for hook, url in enumerate(urls):
        made = client.post(
            f"/api/v1/webhooks/projects/{project_id}/",
            json={"name": f"bench {hook}", "url": url, "event_types": EVENT_TYPES},
        )
        made.raise_for_status()
        hooks.append(made.json())
    return hooks


def _deliveries_log(client: httpx.Client, webhook_id: str) -> list[dict[str, Any]]:
    """Every delivery of the webhook from its delivery log (the route pages by 1,000 at most)."""
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = client.get(f"/api/v1/webhooks/{webhook_id}/deliveries/", params={"page": page, "page_size": 1000})
        data = answer.raise_for_status().json()
        found.extend(data["results"])
        if not data.get("next"):
            return found
        page += 1


def _log_view(client: httpx.Client, webhook_id: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What the delivery log says of a webhook: its deliveries by state, the dead ones (as `?status=dead` counts
    them), and the attempts."""
    states: dict[str, int] = {}
    for row in rows:
        states[row["state"]] = states.get(row["state"], 0) + 1
    dead = client.get(f"/api/v1/webhooks/{webhook_id}/deliveries/", params={"status": "dead"})
    pending = client.get(f"/api/v1/webhooks/{webhook_id}/deliveries/", params={"status": "pending"})
    attempts = [a for row in rows for a in row["attempts"]]
    return {
        "deliveries": len(rows),
        "states": states,
        "dead_count": dead.raise_for_status().json()["count"],
        "pending_count": pending.raise_for_status().json()["count"],
        "attempts": len(attempts),
        "failed_attempts": sum(1 for a in attempts if not 200 <= (a["status_code"] or 0) < 300),
        "failure_kinds": sorted({str(a["error"])[:60] for a in attempts if a["error"]})[:5],
        "most_attempts_of_one_delivery": max((len(row["attempts"]) for row in rows), default=0),
    }


def _ts(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def _ms(samples: Sequence[float]) -> dict[str, float]:
    if not samples:
        return {"n": 0}
    figures = percentiles(samples)
    figures["max"] = round(max(samples), 3)
    return figures


def run(
    events: int = 10_000,
    outage_seconds: float = 300.0,
    *,
    per_add: int = 10,
    users: int = 100,
    pace: float = 100.0,
    seed: int = 11,
) -> dict[str, Any]:
    """`events` memory events (adds of `per_add` messages) to three webhooks; `pace` events per second in the
    paced phases; the receivers down for `outage_seconds` in the middle. See the module's description."""
    calls = _calls(events, per_add, users, seed)
    shares = [round(len(calls) * s) for s in SHARES]
    shares[-1] = len(calls) - sum(shares[:-1])
    work = Path(tempfile.mkdtemp(prefix="mnemo-webhook-bench-"))
    env = server_env()
    api_key, project_id = bootstrap(work / "data", env)
    load_before = os.getloadavg()
    receivers = Receivers(HOOKS)
    server, base = start_server(work / "data", work / "serve.log", env)
    try:
        with httpx.Client(base_url=base, headers={"Authorization": f"Token {api_key}"}, timeout=120) as client:
            hooks = _create_webhooks(client, project_id, receivers.urls())
            receivers.command("secrets", secrets=[h["secret"] for h in hooks])
            producer = Producer(client, calls)
            usage = Usage(server.pid, receivers.pid)
            run_started = time.time()
            timeline = _drive(producer, receivers, shares, pace / per_add, outage_seconds, max(600, 2 * outage_seconds))
            run_seconds = round(time.time() - run_started, 1)
            cpu, server_memory = usage.spent(), memory_status_mb(server.pid)
            log_rows = {h["webhook_id"]: _deliveries_log(client, h["webhook_id"]) for h in hooks}
            log_view = {webhook: _log_view(client, webhook, rows) for webhook, rows in log_rows.items()}
        dump = work / "received.jsonl"
        receivers.command("dump", path=str(dump))
        records = [json.loads(line) for line in dump.read_text().splitlines()]
    finally:
        receivers.close()
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
    shutil.rmtree(work, ignore_errors=True)  # kept when the run failed: the server's log is in it
    received = Received.of(records, [h["webhook_id"] for h in hooks])
    figures: dict[str, Any] = {
        "setup": {
            "events_asked": events,
            "messages_per_add": per_add,
            "adds": producer.next,
            "users": max(1, min(users, events // per_add)),
            "webhooks": HOOKS,
            "event_types": EVENT_TYPES,
            "pace_events_per_second": pace,
            "outage_seconds": outage_seconds,
            "retry_schedule": RETRY_SCHEDULE,
            "retry_schedule_short": RETRY_SCHEDULE_SHORT,
            "retry_jitter": "±20%",
            "phase_adds": dict(zip(PHASES, shares, strict=True)),
            "receivers": "one asyncio process, three ports; each signature verified on arrival "
            "(standardwebhooks.Webhook(secret).verify); down = listening sockets closed, open connections reset",
            "auth": "Authorization: Token (a project key made by mnemo platform bootstrap)",
        },
        "phases": {
            name: {**stats, "first_sent": round(stats["first_sent"] - run_started, 3)}
            for name, stats in producer.phases.items()
        },
        "events_added": len(producer.memories),
        "add_errors": len(producer.errors),
        "first_add_errors": producer.errors[:5],
        "messages_not_added": producer.not_added,
        "healthy_all_delivered_before_outage": timeline.healthy_all_delivered,
        **_checks(received, producer),
        **_timings(received, producer, timeline),
        "delivery_log_breakdown_ms": _breakdown(log_rows, producer),
        "delivery_log": log_view,
        "final_counts": timeline.final_counts,
        "run_seconds": run_seconds,
        "server_peak_rss_mb": server_memory.get("VmHWM"),
        "server_rss_at_end_mb": server_memory.get("VmRSS"),
        "cpu_seconds": cpu,
        "server_cpu_ms_per_delivery_adds_included": round(1000 * cpu["server"] / max(1, len(received.first)), 3),
        "machine_load": {
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
            "note": "2 cores shared by the server, the receivers, the load generator and whatever else ran",
        },
    }
    return figures


# ---- the analysis -------------------------------------------------------------------------------------------


@dataclass
class Received:
    """What the receivers got: every request (`raw`), and each webhook-id's first arrival per receiver, in
    arrival order (`per_hook`: arrival time and parsed body)."""

    raw: int
    invalid: int
    misrouted: int
    first: dict[str, tuple[int, float, dict[str, Any]]]
    per_hook: dict[int, list[tuple[float, dict[str, Any]]]]

    @classmethod
    def of(cls, records: list[list[Any]], hook_ids: list[str]) -> Received:
        first: dict[str, tuple[int, float, dict[str, Any]]] = {}
        invalid = misrouted = 0
        for hook, arrived, message_id, valid, text in records:
            invalid += not valid
            if message_id in first:
                continue
            body = json.loads(text)
            misrouted += body.get("webhook_id") != hook_ids[hook]
            first[message_id] = (hook, arrived, body)
        per_hook: dict[int, list[tuple[float, dict[str, Any]]]] = {h: [] for h in range(len(hook_ids))}
        for hook, arrived, body in first.values():
            per_hook[hook].append((arrived, body))
        for got in per_hook.values():
            got.sort(key=lambda item: item[0])
        return cls(len(records), invalid, misrouted, first, per_hook)

    def memory_adds(self) -> list[tuple[int, float, dict[str, Any]]]:
        return [(hook, a, b) for hook, got in self.per_hook.items() for a, b in got if b["event_type"] == "memory_add"]


def _checks(received: Received, producer: Producer) -> dict[str, Any]:
    """Complete, once, signed, in order."""
    expected = list(producer.memories)
    hooks = len(received.per_hook)
    pairs: dict[tuple[int, str], int] = {}
    for hook, _, body in received.memory_adds():
        key = (hook, body["event_details"]["id"])
        pairs[key] = pairs.get(key, 0) + 1
    missing = sum(1 for hook in received.per_hook for memory in expected if (hook, memory) not in pairs)
    other_types: dict[str, int] = {}
    for _, _, body in received.first.values():
        if body["event_type"] != "memory_add":
            other_types[body["event_type"]] = other_types.get(body["event_type"], 0) + 1
    return {
        "deliveries_expected": len(expected) * hooks,
        "deliveries_received_raw": received.raw,
        "deliveries_unique": len(received.first),
        "repeats_raw": received.raw - len(received.first),
        "missing": missing,
        "delivered_percent": round(100 * (1 - missing / max(1, len(expected) * hooks)), 4),
        "duplicates_after_dropping_repeats": sum(n - 1 for n in pairs.values() if n > 1),
        "unexpected_memories": sum(1 for (_, memory) in pairs if memory not in producer.memories),
        "other_event_types": other_types,
        "misrouted": received.misrouted,
        "signatures_verified": received.raw,
        "signatures_invalid": received.invalid,
        "order_problems": _order_problems(received, expected),
    }


def _order_problems(received: Received, expected: list[str]) -> list[str]:
    """Each webhook's sequence numbers increase in arrival order and run 1..n, and its memories arrive in the
    order they were added."""
    problems = []
    for hook, got in received.per_hook.items():
        sequences = [body["sequence"] for _, body in got]
        if any(b <= a for a, b in itertools.pairwise(sequences)):
            problems.append(f"webhook {hook}: sequence numbers not increasing in arrival order")
        if sorted(sequences) != list(range(1, len(sequences) + 1)):
            problems.append(f"webhook {hook}: sequence numbers are not 1..{len(sequences)}")
        memories = [body["event_details"]["id"] for _, body in got if body["event_type"] == "memory_add"]
        if memories != expected:
            problems.append(f"webhook {hook}: memories not in the order they were added")
    return problems


def _timings(received: Received, producer: Producer, timeline: Timeline) -> dict[str, Any]:
    """Latency per phase (arrival minus the event's occurred_at; and minus the add's acknowledgement),
    deliveries per second per phase, and the recovery after the outage."""
    latency: dict[str, list[float]] = {}
    from_ack: dict[str, list[float]] = {}
    arrivals: dict[str, list[float]] = {}
    for _, arrived, body in received.memory_adds():
        added = producer.memories.get(body["event_details"]["id"])
        if added is None:
            continue
        latency.setdefault(added.phase, []).append(1000 * (arrived - _ts(body["occurred_at"])))
        from_ack.setdefault(added.phase, []).append(1000 * (arrived - added.acknowledged))
        arrivals.setdefault(added.phase, []).append(arrived)
    throughput = {}
    for phase, stats in producer.phases.items():
        times = arrivals.get(phase, [])
        if times:
            span = max(times) - stats["first_sent"]
            throughput[phase] = {
                "deliveries": len(times),
                "seconds_first_add_to_last_arrival": round(span, 3),
                "deliveries_per_second": round(len(times) / span, 1),
                "events_per_second_added": round(stats["events"] / max(stats["seconds"], 1e-3), 1),
            }
    return {
        "latency_ms_from_occurred_at": {phase: _ms(v) for phase, v in latency.items()},
        "latency_ms_from_add_acknowledged": {phase: _ms(v) for phase, v in from_ack.items()},
        "throughput": throughput,
        "outage": _recovery(received, producer, timeline),
        "all_arrived_seconds_after_last_add": round(timeline.all_arrived_at - timeline.last_add, 1),
    }


def _recovery(received: Received, producer: Producer, timeline: Timeline) -> dict[str, Any]:
    """The outage: nothing received while down; after the return, the first arrival, the backlog (every event
    made before the return) drained, everything delivered, and the deliveries per second of the drain."""
    up = timeline.up_at
    backlog = producer.of_phases(BACKLOG_PHASES)
    everything = sorted(a for _, a, _ in received.first.values())
    after_up = [a for a in everything if a >= up]
    pending = sorted(a for _, a, body in received.first.values() if a >= up and body["event_details"]["id"] in backlog)
    drain_span = pending[-1] - pending[0] if len(pending) > 1 else 0.0
    return {
        "down_for_seconds": round(up - timeline.down_at, 1),
        "events_during": sum(1 for a in producer.memories.values() if a.phase == "outage"),
        "received_while_down": sum(1 for a in everything if timeline.down_at < a < up),
        "backlog_deliveries_at_recovery": len(pending),
        "first_arrival_after_recovery_s": round(after_up[0] - up, 3) if after_up else None,
        "backlog_drained_after_recovery_s": round(pending[-1] - up, 3) if pending else None,
        "everything_delivered_after_recovery_s": round(after_up[-1] - up, 3) if after_up else None,
        "drain_deliveries_per_second": round(len(pending) / drain_span, 1) if drain_span else None,
    }


def _breakdown(log_rows: dict[str, list[dict[str, Any]]], producer: Producer) -> dict[str, Any]:
    """Where a delivery's time goes, from the delivery log, per phase: the event's occurred_at to its delivery
    row (`relay_ms`: the outbox drained into deliveries), the row to its first attempt (`queue_ms`: waiting for
    its turn), and the successful attempt's round trip as the sender timed it (`attempt_ms`)."""
    parts: dict[str, dict[str, list[float]]] = {}
    for rows in log_rows.values():
        for row in rows:
            added = producer.memories.get(row["payload"].get("event_details", {}).get("id"))
            if added is None or not row["attempts"]:
                continue
            phase = parts.setdefault(added.phase, {"relay_ms": [], "queue_ms": [], "attempt_ms": []})
            created = _ts(row["created_at"])
            phase["relay_ms"].append(1000 * (created - _ts(row["payload"]["occurred_at"])))
            phase["queue_ms"].append(1000 * (_ts(row["attempts"][0]["at"]) - created))
            phase["attempt_ms"].append(float(row["attempts"][-1]["latency_ms"]))
    return {phase: {name: _ms(v) for name, v in kinds.items()} for phase, kinds in parts.items()}


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.webhooks [EVENTS [OUTAGE_SECONDS]]` prints the figures (bench/run.py records them);
    `--receive N` is the receivers' process."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "--receive":
        asyncio.run(_serve_receivers(int(args[1])))
        return 0
    events = int(args[0]) if args else 1_000
    outage = float(args[1]) if len(args) > 1 else 20.0
    print(json.dumps(run(events, outage), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
