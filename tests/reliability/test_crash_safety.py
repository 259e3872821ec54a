"""Crash safety: a real `mnemo serve` is killed with SIGKILL while writes on both surfaces are in flight; after a
restart on the same data dir every write it acknowledged is there and searchable, every asynchronous add it
acknowledged finishes, and every SQLite file passes `PRAGMA integrity_check`.

The writers: self-hosted adds (infer=false, admin key), platform synchronous adds (`POST /v3/memories/add/`
infer=false) and platform asynchronous adds (infer=true: acknowledged PENDING, run by the in-process worker), on
two tenants (one bootstrapped before the server starts, one while it runs). Each acknowledged write is recorded
with its ids and a token of its own; after ACKS_BEFORE_KILL of them the server is killed mid-flight.

`make test` kills after a few hundred acknowledged writes a round, enough for every kind of write to be in flight and
for the restart to have unfinished adds to run; `make soak` runs the same test and assertions with many more
(MNEMO_CRASH_ACKS).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.reliability.live_server import ADMIN, Server, Tenant, bootstrap, serving
from tests.support.waits import seconds

CRASHES = 2  # the second while the restarted worker still runs what the first left
# acknowledged writes (all kinds together) in each round before its SIGKILL
ACKS_BEFORE_KILL = int(os.environ.get("MNEMO_CRASH_ACKS", "150"))
SELF_HOSTED_WRITERS = 4
SYNC_WRITERS_PER_TENANT = 2
ASYNC_WRITERS_PER_TENANT = 2
WRITE_SECONDS = seconds(60)  # at most, to reach ACKS_BEFORE_KILL (a few seconds on two idle cores)
FINISH_SECONDS = seconds(90)  # at most, for the restarted worker to finish the acknowledged asynchronous adds
HTTP_TIMEOUT = seconds(60)  # latency is not what is tested here

# The sentences of an asynchronous add: distinct topics, so that the extractor keeps each (it drops a statement
# whose embedding is within 0.9 of another of the same scope); {t} is the sentence's own token.
ASYNC_SENTENCES = (
    "My neighbour keeps a vintage bicycle called {t} in her garage.",
    "My quarterly budget review for project {t} moved to Thursday afternoon.",
    "Our billing service {t} is deployed from the Frankfurt region.",
    "My grandma's lemon cake recipe {t} needs three eggs and fresh zest.",
    "My favourite hiking trail {t} climbs eight hundred metres above the lake.",
    "I am learning the cello with a teacher named {t} on weekends.",
)


@dataclass(frozen=True)
class Stored:
    """An acknowledged synchronous write: one memory, with the token that finds it."""

    tenant: Tenant | None  # None: the self-hosted surface
    user: str
    memory_id: str
    text: str
    token: str


@dataclass(frozen=True)
class Queued:
    """An acknowledged asynchronous add: its event, and the (token, sentence) pairs it carries."""

    tenant: Tenant
    user: str
    event_id: str
    sentences: tuple[tuple[str, str], ...]


@dataclass
class Ledger:
    """What the server acknowledged, and how many requests are out, under one condition."""

    changed: threading.Condition = field(default_factory=threading.Condition)
    stored: list[Stored] = field(default_factory=list)
    queued: list[Queued] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    in_flight: int = 0
    killing: bool = False

    @property
    def acknowledged(self) -> int:
        return len(self.stored) + len(self.queued)

    def covers(self, tenants: list[Tenant]) -> bool:
        """Every kind of write has been acknowledged: self-hosted, and each tenant's synchronous and queued adds."""
        stored, queued = {s.tenant for s in self.stored}, {q.tenant for q in self.queued}
        return stored >= {None, *tenants} and queued >= set(tenants)

    @contextmanager
    def request(self) -> Iterator[None]:
        with self.changed:
            self.in_flight += 1
        try:
            yield
        finally:
            with self.changed:
                self.in_flight -= 1

    def record(self, item: Stored | Queued) -> None:
        with self.changed:
            if isinstance(item, Stored):
                self.stored.append(item)
            else:
                self.queued.append(item)
            self.changed.notify_all()

    def fail(self, message: str) -> None:
        with self.changed:
            self.errors.append(message)
            self.changed.notify_all()


def token(kind: str, writer: int, n: int, k: int = 0) -> str:
    return f"{kind}{writer}x{n}y{k}q"


class Writer:
    """One thread writing one kind until the server is gone; every 200 is recorded, anything else before the kill
    is an error."""

    def __init__(self, base: str, ledger: Ledger, kind: str, number: int, tenant: Tenant | None) -> None:
        self.base = base
        self.ledger = ledger
        self.kind = kind
        self.number = number
        self.tenant = tenant

    def run(self) -> None:
        headers = ADMIN if self.tenant is None else self.tenant.headers
        writes: dict[str, Callable[[httpx.Client, int], Stored | Queued]] = {
            "sh": self.self_hosted,
            "ps": self.platform_sync,
            "pa": self.platform_async,
        }
        write = writes[self.kind]
        with httpx.Client(base_url=self.base, headers=headers, timeout=HTTP_TIMEOUT) as http:
            n = 0
            while True:
                try:
                    with self.ledger.request():  # in flight until its answer is here
                        acknowledged = write(http, n)
                    self.ledger.record(acknowledged)
                except httpx.TransportError as exc:
                    if not self.ledger.killing:
                        self.ledger.fail(f"{self.kind}{self.number}: {type(exc).__name__} before the kill: {exc}")
                    return
                except Exception as exc:  # reported by the test
                    self.ledger.fail(f"{self.kind}{self.number}: {type(exc).__name__}: {exc}")
                    return
                n += 1

    def answer(self, response: httpx.Response) -> Any:
        if response.status_code != 200:
            raise AssertionError(f"{response.request.url.path} answered {response.status_code}: {response.text[:300]}")
        return response.json()

    def self_hosted(self, http: httpx.Client, n: int) -> Stored:
        mark = token(self.kind, self.number, n)
        text = f"Self-hosted writer {self.number} filed note {n} under the code {mark}"
        user = f"sh-{self.number}"
        body = {"messages": [{"role": "user", "content": text}], "user_id": user, "infer": False}
        (result,) = self.answer(http.post("/memories", json=body))["results"]
        assert (result["event"], result["memory"]) == ("ADD", text), result
        return Stored(None, user, result["id"], text, mark)

    def platform_sync(self, http: httpx.Client, n: int) -> Stored:
        assert self.tenant is not None
        mark = token(self.kind, self.number, n)
        text = f"Platform writer {self.number} stored entry {n} with the reference {mark}"
        user = f"ps-{self.number}"
        body = {"messages": [{"role": "user", "content": text}], "user_id": user, "infer": False}
        added = self.answer(http.post("/v3/memories/add/", json=body))
        assert added["status"] == "SUCCEEDED", added
        (result,) = added["results"]
        assert (result["event"], result["data"]["memory"]) == ("ADD", text), result
        return Stored(self.tenant, user, result["id"], text, mark)

    def platform_async(self, http: httpx.Client, n: int) -> Queued:
        assert self.tenant is not None
        sentences = tuple(
            (mark, sentence.format(t=mark))
            for k, sentence in enumerate(ASYNC_SENTENCES)
            for mark in [token(self.kind, self.number, n, k)]
        )
        user = f"pa-{self.number}-{n}"  # a scope of its own: no other add's memory is a near-duplicate of these
        messages = [{"role": "user", "content": text} for _, text in sentences]
        queued = self.answer(http.post("/v3/memories/add/", json={"messages": messages, "user_id": user}))
        assert queued["status"] == "PENDING", queued
        return Queued(self.tenant, user, queued["event_id"], sentences)


def integrity(database: Path) -> str:
    """`PRAGMA integrity_check` of one SQLite file, opened read-only."""
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=seconds(30))
    try:
        return ", ".join(str(row[0]) for row in conn.execute("PRAGMA integrity_check"))
    finally:
        conn.close()


def every_database(data_dir: Path) -> list[Path]:
    return [data_dir / "mnemo.sqlite3", *sorted((data_dir / "namespaces").glob("*.sqlite3"))]


def event_statuses(data_dir: Path, event_ids: list[str]) -> dict[str, str]:
    """The stored status of each event, read from the main SQLite file (read-only, the server being down)."""
    conn = sqlite3.connect(f"file:{data_dir / 'mnemo.sqlite3'}?mode=ro", uri=True, timeout=seconds(30))
    try:
        rows = conn.execute("SELECT id, status FROM platform_events").fetchall()
    finally:
        conn.close()
    wanted = set(event_ids)
    return {event_id: status for event_id, status in rows if event_id in wanted}


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, (response.request.method, response.request.url, response.text[:500])
    return response.json()


# ---- what must hold after the restart ----------------------------------------------------------------------


def check_stored(http: httpx.Client, item: Stored) -> None:
    """The memory is there with its text, and a search for its token finds it."""
    if item.tenant is None:
        memory = ok(http.get(f"/memories/{item.memory_id}", headers=ADMIN))
        assert memory["memory"] == item.text
        body = {"query": item.token, "filters": {"user_id": item.user}, "threshold": 0.0, "top_k": 5}
        hits = ok(http.post("/search", json=body, headers=ADMIN))["results"]
    else:
        memory = ok(http.get(f"/v1/memories/{item.memory_id}/", headers=item.tenant.headers))
        assert memory["memory"] == item.text
        body = {"query": item.token, "filters": {"user_id": item.user}, "threshold": 0.0, "top_k": 5}
        hits = ok(http.post("/v3/memories/search/", json=body, headers=item.tenant.headers))["results"]
    assert item.memory_id in [h["id"] for h in hits], f"a search for {item.token} misses {item.memory_id}"


def check_queued(http: httpx.Client, item: Queued) -> None:
    """The add's event SUCCEEDED; each sentence is stored once (a rerun after the crash stores nothing twice), the
    event's results are there, and a search for each sentence's token finds it."""
    headers = item.tenant.headers
    event = ok(http.get(f"/v1/event/{item.event_id}/", headers=headers))
    assert event["status"] == "SUCCEEDED", event
    listed = ok(http.get("/v1/memories/", params={"user_id": item.user}, headers=headers))
    texts = sorted(m["memory"] for m in listed)
    assert texts == sorted(text for _, text in item.sentences), f"event {item.event_id} stored {texts}"
    ids = {m["memory"]: m["id"] for m in listed}
    for result in event["results"]:
        assert ids.get(result["data"]["memory"]) == result["id"], result
    for mark, text in item.sentences:
        body = {"query": mark, "filters": {"user_id": item.user}, "threshold": 0.0, "top_k": 5}
        hits = ok(http.post("/v3/memories/search/", json=body, headers=headers))["results"]
        assert ids[text] in [h["id"] for h in hits], f"a search for {mark} misses {text!r}"


def wait_finished(http: httpx.Client, queued: list[Queued]) -> None:
    """Poll the acknowledged asynchronous adds until each has ended (the worker runs them in order)."""
    open_events = list(queued)
    deadline = time.monotonic() + FINISH_SECONDS
    while open_events:
        item = open_events[-1]
        status = ok(http.get(f"/v1/event/{item.event_id}/", headers=item.tenant.headers))["status"]
        if status in ("SUCCEEDED", "FAILED"):
            open_events.pop()
            continue
        assert time.monotonic() < deadline, f"{len(open_events)} acknowledged adds unfinished after the restart"
        time.sleep(0.2)  # polling the event's status


# ---- the test ---------------------------------------------------------------------------------------------


@dataclass
class Crash:
    """What the crash left: the ledger, and what was seen at the moment of the kill."""

    ledger: Ledger
    in_flight_at_kill: int
    unfinished_at_kill: int
    earlier_unfinished_at_kill: int  # of the adds an earlier crash had left
    write_seconds: float


def write_and_kill(
    server: Server, data_dir: Path, tenants: list[Tenant], round_number: int, earlier: list[Queued]
) -> Crash:
    """Start the writers, kill the server once ACKS_BEFORE_KILL writes are acknowledged, reap the writers."""
    ledger = Ledger()
    first = 100 * round_number  # writer numbers, hence tokens and users, of this round only
    writers = [Writer(server.base, ledger, "sh", first + n, None) for n in range(SELF_HOSTED_WRITERS)]
    for t, tenant in enumerate(tenants):
        number = first + 10 * (t + 1)
        writers += [Writer(server.base, ledger, "ps", number + n, tenant) for n in range(SYNC_WRITERS_PER_TENANT)]
        writers += [Writer(server.base, ledger, "pa", number + n, tenant) for n in range(ASYNC_WRITERS_PER_TENANT)]
    threads = [threading.Thread(target=w.run, name=f"writer-{w.kind}{w.number}") for w in writers]
    began = time.monotonic()
    try:
        for thread in threads:
            thread.start()
        with ledger.changed:
            # the kill comes once enough writes, of every kind, are acknowledged (a new project's first add is slower)
            reached = ledger.changed.wait_for(
                lambda: (ledger.acknowledged >= ACKS_BEFORE_KILL and ledger.covers(tenants)) or bool(ledger.errors),
                timeout=WRITE_SECONDS,
            )
            ledger.killing = True
            in_flight = ledger.in_flight  # requests sent (or being sent) and not answered yet
            server.kill()  # answers that arrive meanwhile are recorded after it, and checked like the others
    finally:
        ledger.killing = True
        server.kill()
        for thread in threads:
            thread.join(timeout=HTTP_TIMEOUT + 30)
    assert not any(t.is_alive() for t in threads), "a writer hung after the kill"
    assert ledger.errors == [], ledger.errors
    assert reached, (
        f"{ledger.acknowledged} writes acknowledged in {WRITE_SECONDS:.0f} s, every kind: {ledger.covers(tenants)}"
    )
    statuses = event_statuses(data_dir, [q.event_id for q in [*earlier, *ledger.queued]])
    assert len(statuses) == len(earlier) + len(ledger.queued), "an acknowledged asynchronous add has no event"
    unfinished = {event_id for event_id, status in statuses.items() if status in ("PENDING", "RUNNING")}
    earlier_unfinished = len(unfinished & {q.event_id for q in earlier})
    return Crash(ledger, in_flight, len(unfinished) - earlier_unfinished, earlier_unfinished, time.monotonic() - began)


@pytest.mark.timeout(seconds(80))  # a hung test, on the scale of every other wait
def test_acknowledged_writes_survive_kill_9(tmp_path: Path) -> None:
    """Two crashes: the second comes while the restarted worker still runs the adds the first one left."""
    data_dir = tmp_path / "data"
    log = tmp_path / "serve.log"
    began = time.monotonic()
    first = bootstrap(data_dir, "crash-one@example.com", "Crash One")  # before the server starts
    crashes: list[Crash] = []
    second: Tenant | None = None
    for round_number in range(CRASHES):
        with serving(data_dir, log) as server:
            if second is None:
                second = bootstrap(data_dir, "crash-two@example.com", "Crash Two")  # while it runs
            tenants = [first, second]
            with httpx.Client(base_url=server.base, timeout=HTTP_TIMEOUT) as http:
                for tenant in tenants:
                    assert ok(http.get("/v1/ping/", headers=tenant.headers))["project_id"] == tenant.project_id
            earlier = [q for c in crashes for q in c.ledger.queued]
            crash = write_and_kill(server, data_dir, tenants, round_number, earlier)
        crashes.append(crash)
        # The kill came mid-flight, with acknowledged asynchronous adds not yet run: the restart has work to do.
        assert crash.in_flight_at_kill >= 1
        assert crash.unfinished_at_kill >= 1, "every asynchronous add had finished: the requeue was not exercised"
        if round_number:
            assert crash.earlier_unfinished_at_kill >= 1, "the worker had run every add of the previous crash"
        assert {s.tenant for s in crash.ledger.stored} == {None, first, second}
        assert {q.tenant for q in crash.ledger.queued} == {first, second}
        databases = every_database(data_dir)
        assert [p.stem for p in databases[1:]] == sorted([first.project_id, second.project_id])
        assert {p.name: integrity(p) for p in databases} == {p.name: "ok" for p in databases}  # as the kill left them

    stored = [s for crash in crashes for s in crash.ledger.stored]
    queued = [q for crash in crashes for q in crash.ledger.queued]
    with serving(data_dir, log) as server, httpx.Client(base_url=server.base, timeout=HTTP_TIMEOUT) as http:
        restarted = time.monotonic()
        wait_finished(http, queued)
        finished = time.monotonic() - restarted
        checks: list[Callable[[], None]] = [partial(check_stored, http, s) for s in stored]
        checks += [partial(check_queued, http, q) for q in queued]
        with ThreadPoolExecutor(max_workers=6) as pool:
            for future in [pool.submit(check) for check in checks]:
                future.result()
    assert not server.alive()

    assert {p.name: integrity(p) for p in databases} == {p.name: "ok" for p in databases}  # after a clean stop
    rounds = "; ".join(
        f"{len(c.ledger.stored)} synchronous + {len(c.ledger.queued)} asynchronous writes acknowledged in "
        f"{c.write_seconds:.1f} s, killed with {c.in_flight_at_kill} requests in flight, {c.unfinished_at_kill} "
        f"acknowledged adds unfinished (and {c.earlier_unfinished_at_kill} of the previous crash's)"
        for c in crashes
    )
    print(
        f"\ncrash safety: {rounds}; all {len(queued)} finished {finished:.1f} s after the last restart; "
        f"whole test {time.monotonic() - began:.1f} s"
    )
