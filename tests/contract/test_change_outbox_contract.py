"""The ChangeOutbox contract, for the two stores that write one: a platform namespace's memory store (an event per
change of a memory, in Mem0's payload shape, with the memory's entity ids) and the tenancy store (an event when an
ingest job ends). Events are kept in the order written until they are published, and each is written in the same
transaction as the change it describes.

To add an adapter, register a factory in MEMORY_ADAPTERS (a memory store writing the outbox of a
namespace, or none when the namespace is None) and in TENANCY_ADAPTERS. The tests at the end are the embedded
backend's own: the outbox row and the change commit or roll back together, and a restarted process finds the
events a namespace file was left with.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.dynamodb.outbox import memories_outbox
from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope, new_id
from mnemo.domain.tenancy import EventStatus, Organization, PlatformEvent, PlatformUser, Project
from mnemo.domain.timefmt import iso
from mnemo.domain.webhooks import OutboundEvent
from mnemo.language.en import english
from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.ports.memory_store import DuplicateMemoryError, MemoryStore
from mnemo.ports.tenancy_store import TenancyStore
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_accounts_table, create_memory_table

T0 = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)
NAMESPACE = "proj_a"
DIMENSION = 4


class OutboxMemoryStore(MemoryStore, ChangeOutbox, Protocol):
    """A memory store that is its own outbox."""


class OutboxTenancyStore(TenancyStore, ChangeOutbox, Protocol):
    """A tenancy store that is the outbox of its ingest jobs' ends."""


@dataclass
class Wakeups:
    count: int = 0
    fail: bool = False

    def __call__(self) -> None:
        self.count += 1
        if self.fail:
            raise RuntimeError("the relay is gone")


MemoryFactory = Callable[[Path, str | None, Callable[[], None] | None], AbstractContextManager[OutboxMemoryStore]]
TenancyFactory = Callable[[Path, Callable[[], None] | None], AbstractContextManager[OutboxTenancyStore]]


@contextmanager
def sqlite_memory_store(
    tmp_path: Path, namespace: str | None, on_outbox: Callable[[], None] | None
) -> Iterator[OutboxMemoryStore]:
    database = Database(tmp_path / f"{namespace or 'selfhosted'}.sqlite3")
    try:
        yield SqliteMemoryStore(database, outbox_namespace=namespace, on_outbox=on_outbox)
    finally:
        database.close()


@contextmanager
def sqlite_tenancy_store(tmp_path: Path, on_outbox: Callable[[], None] | None) -> Iterator[OutboxTenancyStore]:
    database = Database(tmp_path / "main.sqlite3")
    try:
        yield SqliteTenancyStore(database, on_outbox=on_outbox)
    finally:
        database.close()


@contextmanager
def dynamodb_memory_store(
    _tmp_path: Path, namespace: str | None, on_outbox: Callable[[], None] | None
) -> Iterator[OutboxMemoryStore]:
    """A namespace's store writing the memories table's outbox (or the plain store, which writes none)."""
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_memory_table(client, "outbox-memories")
        outbox = namespace is not None
        yield DynamoMemoryStore(client, "outbox-memories", namespace=namespace, outbox=outbox, on_outbox=on_outbox)


@contextmanager
def dynamodb_tenancy_store(_tmp_path: Path, on_outbox: Callable[[], None] | None) -> Iterator[OutboxTenancyStore]:
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_accounts_table(client, "outbox-accounts")
        yield DynamoTenancyStore(client, "outbox-accounts", outbox=True, on_outbox=on_outbox)


MEMORY_ADAPTERS: dict[str, MemoryFactory] = {"sqlite": sqlite_memory_store, "dynamodb": dynamodb_memory_store}
TENANCY_ADAPTERS: dict[str, TenancyFactory] = {"sqlite": sqlite_tenancy_store, "dynamodb": dynamodb_tenancy_store}


@pytest.fixture
def wakeups() -> Wakeups:
    return Wakeups()


@pytest.fixture(params=sorted(MEMORY_ADAPTERS))
def memory_adapter(request: pytest.FixtureRequest) -> MemoryFactory:
    return MEMORY_ADAPTERS[request.param]


@pytest.fixture
def store(memory_adapter: MemoryFactory, tmp_path: Path, wakeups: Wakeups) -> Iterator[OutboxMemoryStore]:
    with memory_adapter(tmp_path, NAMESPACE, wakeups) as built:
        yield built


@pytest.fixture(params=sorted(TENANCY_ADAPTERS))
def tenancy(request: pytest.FixtureRequest, tmp_path: Path, wakeups: Wakeups) -> Iterator[OutboxTenancyStore]:
    with TENANCY_ADAPTERS[request.param](tmp_path, wakeups) as built:
        yield built


# ---- helpers --------------------------------------------------------------------------------------------------


def record(text: str, *, categories: tuple[str, ...] = (), **scope: str) -> MemoryRecord:
    return MemoryRecord.create(text, Scope(**(scope or {"user_id": "alice"})), at=T0, categories=categories)


def vectors(n: int) -> np.ndarray[Any, Any]:
    return np.ones((n, DIMENSION), dtype=np.float32)


def entry(event: Event, memory: MemoryRecord, old: str | None, new: str | None, at: datetime) -> HistoryEntry:
    return replace(HistoryEntry.of(event, memory, old, new), updated_at=at)


def insert(store: MemoryStore, *records: MemoryRecord, at: datetime = T0) -> list[HistoryEntry]:
    history = [entry(Event.ADD, r, None, r.text, at) for r in records]
    store.insert(list(records), vectors(len(records)), history)
    return history


def entity_ids(memory: MemoryRecord) -> dict[str, str | None]:
    return {
        "user_id": memory.scope.user_id,
        "agent_id": memory.scope.agent_id,
        "app_id": memory.scope.app_id,
        "run_id": memory.scope.run_id,
    }


def memory_payload(memory: MemoryRecord, text: str, mem0_event: str) -> dict[str, Any]:
    return {"event_details": {"id": memory.id, "data": {"memory": text}, "event": mem0_event}, **entity_ids(memory)}


def categorize_payload(memory: MemoryRecord, categories: list[str]) -> dict[str, Any]:
    details = {"event": "CATEGORIZE", "memory_id": memory.id, "categories": categories}
    return {"event_details": details, **entity_ids(memory)}


def shapes(events: list[OutboundEvent]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(e.type, e.namespace, dict(e.payload)) for e in events]


# ---- the memory store's outbox --------------------------------------------------------------------------------


def test_an_insert_writes_an_add_per_memory_and_a_categorize_for_each_categorized_one(
    store: OutboxMemoryStore, wakeups: Wakeups
) -> None:
    plain = record("Alice likes tea", user_id="alice", agent_id="helper", run_id="r1")
    filed = record("Alice is vegetarian", categories=("food", "health"), user_id="alice")
    history = insert(store, plain, filed)
    pending = store.pending(10)
    assert shapes(pending) == [
        ("memory_add", NAMESPACE, memory_payload(plain, "Alice likes tea", "ADD")),
        ("memory_add", NAMESPACE, memory_payload(filed, "Alice is vegetarian", "ADD")),
        ("memory_categorize", NAMESPACE, categorize_payload(filed, ["food", "health"])),
    ]
    assert [e.occurred_at for e in pending] == [history[0].updated_at] + [history[1].updated_at] * 2
    assert len({e.id for e in pending}) == 3
    positions = [e.position for e in pending]
    assert positions == sorted(positions) and len(set(positions)) == 3 and positions[0] > 0
    assert wakeups.count == 1  # once per write, after it committed


def test_an_update_writes_the_new_text_and_a_categorize_only_when_the_categories_change(
    store: OutboxMemoryStore,
) -> None:
    memory = record("Alice likes tea", categories=("drinks",))
    insert(store, memory)
    store.published([e.id for e in store.pending(10)])
    rewritten = memory.with_text("Alice likes green tea", T0 + timedelta(seconds=1))
    store.replace(rewritten, vectors(1)[0], entry(Event.UPDATE, rewritten, memory.text, rewritten.text, T0))
    assert shapes(store.pending(10)) == [("memory_update", NAMESPACE, memory_payload(memory, rewritten.text, "UPDATE"))]
    store.published([e.id for e in store.pending(10)])
    refiled = rewritten.changed(categories=("drinks", "preferences"))
    store.replace(refiled, None, entry(Event.UPDATE, refiled, rewritten.text, refiled.text, T0))
    assert shapes(store.pending(10)) == [
        ("memory_update", NAMESPACE, memory_payload(memory, rewritten.text, "UPDATE")),
        ("memory_categorize", NAMESPACE, categorize_payload(memory, ["drinks", "preferences"])),
    ]


def test_a_metadata_update_without_history_text_names_the_memorys_text(store: OutboxMemoryStore) -> None:
    memory = record("Alice likes tea")
    insert(store, memory)
    store.published([e.id for e in store.pending(10)])
    changed = memory.changed(metadata={"mood": "calm"})
    store.replace(changed, None, entry(Event.UPDATE, changed, memory.text, None, T0))
    assert shapes(store.pending(10)) == [("memory_update", NAMESPACE, memory_payload(memory, memory.text, "UPDATE"))]


def test_a_superseded_memory_is_a_delete_with_its_text(store: OutboxMemoryStore) -> None:
    old, new = record("Alice lives in Paris"), record("Alice lives in Berlin")
    insert(store, old, new)
    store.published([e.id for e in store.pending(10)])
    superseded = old.changed(state=LifecycleState.SUPERSEDED, replaced_by=new.id)
    store.replace(superseded, None, entry(Event.DELETE, old, old.text, None, T0))
    assert shapes(store.pending(10)) == [("memory_delete", NAMESPACE, memory_payload(old, old.text, "DELETE"))]


def test_a_remove_writes_a_delete_per_memory_naming_it_without_its_text(store: OutboxMemoryStore) -> None:
    first, second = record("Alice likes tea", agent_id="helper"), record("Bob likes coffee", user_id="bob")
    insert(store, first, second)
    store.published([e.id for e in store.pending(10)])
    store.remove([first.id, second.id], [entry(Event.DELETE, r, r.text, None, T0) for r in (first, second)])
    assert shapes(store.pending(10)) == [
        ("memory_delete", NAMESPACE, memory_payload(first, "", "DELETE")),
        ("memory_delete", NAMESPACE, memory_payload(second, "", "DELETE")),
    ]


def test_a_remove_scrubs_the_texts_of_its_memories_unpublished_events(store: OutboxMemoryStore) -> None:
    doomed, kept = record("Alice likes tea"), record("Bob likes coffee", user_id="bob")
    insert(store, doomed, kept)
    rewritten = doomed.with_text("Alice likes green tea")
    store.replace(rewritten, None, entry(Event.UPDATE, rewritten, doomed.text, rewritten.text, T0))
    store.remove([doomed.id], [entry(Event.DELETE, rewritten, None, None, T0)])
    assert shapes(store.pending(10)) == [
        ("memory_add", NAMESPACE, memory_payload(doomed, "", "ADD")),
        ("memory_add", NAMESPACE, memory_payload(kept, kept.text, "ADD")),
        ("memory_update", NAMESPACE, memory_payload(doomed, "", "UPDATE")),
        ("memory_delete", NAMESPACE, memory_payload(doomed, "", "DELETE")),
    ]


def test_history_that_is_no_add_update_or_delete_writes_nothing(store: OutboxMemoryStore, wakeups: Wakeups) -> None:
    memory = record("Alice likes tea")
    store.insert([memory], vectors(1), [entry(Event.NONE, memory, None, memory.text, T0)])
    store.set_vectors([memory.id], vectors(1))
    store.put_setting("config", {"x": 1})
    assert store.pending(10) == []
    assert wakeups.count == 0  # no event, no wake-up


def test_events_are_kept_in_order_until_published(store: OutboxMemoryStore) -> None:
    memories = [record(f"fact {i}") for i in range(5)]
    for memory in memories:
        insert(store, memory)
    store.remove([memories[0].id], [entry(Event.DELETE, memories[0], memories[0].text, None, T0)])
    everything = store.pending(100)
    assert [(e.type, e.payload["event_details"]["id"]) for e in everything] == [
        *[("memory_add", m.id) for m in memories],
        ("memory_delete", memories[0].id),
    ]
    assert store.pending(2) == everything[:2]
    assert store.pending(0) == []
    store.published([everything[0].id, everything[2].id, "unknown-id"])
    assert store.pending(100) == [everything[1], *everything[3:]]
    store.published([])
    store.published([e.id for e in everything])
    assert store.pending(100) == []


def test_a_reset_leaves_the_events_already_written(store: OutboxMemoryStore) -> None:
    insert(store, record("Alice likes tea"))
    store.clear()
    assert [e.type for e in store.pending(10)] == ["memory_add"]


def test_a_wakeup_that_fails_does_not_fail_the_write(store: OutboxMemoryStore, wakeups: Wakeups) -> None:
    wakeups.fail = True
    memory = record("Alice likes tea")
    insert(store, memory)
    assert store.get(memory.id) == memory
    assert wakeups.count == 1 and len(store.pending(10)) == 1


def test_a_store_without_an_outbox_writes_no_event(memory_adapter: MemoryFactory, tmp_path: Path) -> None:
    wakeups = Wakeups()
    with memory_adapter(tmp_path, None, wakeups) as plain:
        memory = record("Alice likes tea", categories=("drinks",))
        insert(plain, memory)
        rewritten = memory.with_text("Alice likes green tea")
        plain.replace(rewritten, None, entry(Event.UPDATE, rewritten, memory.text, rewritten.text, T0))
        plain.remove([memory.id], [entry(Event.DELETE, rewritten, rewritten.text, None, T0)])
        assert plain.pending(10) == []
        assert wakeups.count == 0


# ---- the tenancy store's ingest-job events --------------------------------------------------------------------


def job(store: TenancyStore) -> PlatformEvent:
    owner = store.add_user(PlatformUser(new_id(), f"{new_id()}@example.com", T0))
    org = Organization(f"org_{new_id()[:8]}", "o", T0, T0)
    store.add_org(org, owner)
    project = Project(id=f"proj_{new_id()[:8]}", org_id=org.id, name="p", created_at=T0, updated_at=T0)
    store.add_project(project, owner)
    pending = PlatformEvent(new_id(), project.id, "ADD", EventStatus.PENDING, {"messages": []}, T0, T0)
    store.save_event(pending)
    return pending


def running(event: PlatformEvent) -> PlatformEvent:
    return event.changed(status=EventStatus.RUNNING, started_at=T0, updated_at=T0, attempts=event.attempts + 1)


def test_a_job_that_succeeds_writes_ingest_job_completed(tenancy: OutboxTenancyStore, wakeups: Wakeups) -> None:
    started = running(job(tenancy))
    assert tenancy.update_event(started)
    assert tenancy.pending(10) == [] and wakeups.count == 0  # RUNNING: no event
    ended_at = T0 + timedelta(seconds=3)
    results = [{"id": "m1", "event": "ADD"}, {"id": "m2", "event": "ADD"}, {"id": "m3", "event": "UPDATE"}]
    done = started.changed(status=EventStatus.SUCCEEDED, results=results, completed_at=ended_at, updated_at=ended_at)
    assert tenancy.update_event(done)
    (written,) = tenancy.pending(10)
    assert (written.type, written.namespace, written.occurred_at) == ("ingest_job_completed", done.project_id, ended_at)
    assert written.payload == {
        "event_details": {
            "job_id": done.id,
            "job_type": "ADD",
            "status": "SUCCEEDED",
            "results": {"ADD": 2, "UPDATE": 1},
            "error": None,
            "started_at": iso(T0),
            "completed_at": iso(ended_at),
        }
    }
    assert wakeups.count == 1
    assert tenancy.update_event(done)  # the same end written twice (a redelivered job message): one event
    assert tenancy.pending(10) == [written]
    tenancy.published([written.id])
    assert tenancy.pending(10) == []


def test_a_job_that_fails_writes_ingest_job_failed(tenancy: OutboxTenancyStore) -> None:
    started = running(job(tenancy))
    tenancy.update_event(started)
    failed = started.changed(status=EventStatus.FAILED, error="The LLM is unavailable.", completed_at=T0)
    assert tenancy.update_event(failed)
    (written,) = tenancy.pending(10)
    assert written.type == "ingest_job_failed" and written.namespace == failed.project_id
    assert written.payload["event_details"]["error"] == "The LLM is unavailable."
    assert written.payload["event_details"]["status"] == "FAILED"


def test_a_job_put_back_to_pending_writes_nothing(tenancy: OutboxTenancyStore) -> None:
    started = running(job(tenancy))
    tenancy.update_event(started)
    assert tenancy.update_event(started.changed(status=EventStatus.PENDING))  # an error that passes: retried
    assert tenancy.pending(10) == []


def test_a_cancelled_job_writes_one_event_and_no_later_end(tenancy: OutboxTenancyStore) -> None:
    """A worker that ends a job after it was cancelled is refused (the status rule): the cancel's event alone."""
    started = running(job(tenancy))
    assert tenancy.update_event(started)
    cancelled = started.changed(status=EventStatus.CANCELLED, error="Cancelled.", completed_at=T0)
    assert tenancy.update_event(cancelled)
    (written,) = tenancy.pending(10)
    assert written.payload["event_details"]["status"] == "CANCELLED"
    assert not tenancy.update_event(started.changed(status=EventStatus.SUCCEEDED, completed_at=T0))
    assert not tenancy.update_event(started)  # nor back to RUNNING
    assert tenancy.update_event(cancelled.changed(results=[{"id": "m1", "event": "ADD"}]))  # its results, kept
    assert tenancy.pending(10) == [written]
    stored = tenancy.get_event(started.project_id, started.id)
    assert stored is not None and (stored.status, stored.results) == (
        EventStatus.CANCELLED,
        [{"id": "m1", "event": "ADD"}],
    )


def test_job_events_are_kept_in_order_across_projects(tenancy: OutboxTenancyStore) -> None:
    jobs = [running(job(tenancy)) for _ in range(3)]
    for number, started in enumerate(jobs):
        status = EventStatus.FAILED if number == 1 else EventStatus.SUCCEEDED
        tenancy.update_event(started.changed(status=status, completed_at=T0))
    pending = tenancy.pending(10)
    assert [(e.namespace, e.type) for e in pending] == [
        (jobs[0].project_id, "ingest_job_completed"),
        (jobs[1].project_id, "ingest_job_failed"),
        (jobs[2].project_id, "ingest_job_completed"),
    ]
    assert tenancy.pending(1) == pending[:1]
    tenancy.published([pending[1].id, "unknown"])
    assert tenancy.pending(10) == [pending[0], pending[2]]


def test_only_the_end_of_a_stored_asynchronous_add_is_a_job_event(tenancy: OutboxTenancyStore) -> None:
    started = running(job(tenancy))
    # saved rather than updated: a synchronous add, or one that could not be queued (no job was acknowledged)
    tenancy.save_event(started.changed(status=EventStatus.SUCCEEDED, completed_at=T0))
    # not an add: a delete's event
    deleted = PlatformEvent(new_id(), started.project_id, "DELETE", EventStatus.PENDING, {}, T0, T0)
    tenancy.save_event(deleted)
    assert tenancy.update_event(deleted.changed(status=EventStatus.SUCCEEDED, completed_at=T0))
    # the project was deleted while the job ran: nothing is written back, no event either
    gone = started.changed(id=new_id(), status=EventStatus.SUCCEEDED)
    assert not tenancy.update_event(gone)
    assert tenancy.pending(10) == []


# ---- the embedded backend: one transaction, and the files a restart finds -------------------------------------


def _fail_outbox_inserts(database: Database, table: str) -> None:
    with database.write() as conn:
        conn.execute(
            f"CREATE TRIGGER refuse_outbox BEFORE INSERT ON {table} BEGIN SELECT RAISE(ABORT, 'outbox refused'); END"
        )


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[tuple[Database, SqliteMemoryStore, Wakeups]]:
    database = Database(tmp_path / "ns.sqlite3")
    wakeups = Wakeups()
    try:
        yield database, SqliteMemoryStore(database, outbox_namespace=NAMESPACE, on_outbox=wakeups), wakeups
    finally:
        database.close()


def test_a_change_whose_event_cannot_be_written_is_rolled_back(
    sqlite_store: tuple[Database, SqliteMemoryStore, Wakeups],
) -> None:
    database, store, wakeups = sqlite_store
    kept = record("Alice likes tea")
    insert(store, kept)
    store.published([e.id for e in store.pending(10)])
    wakeups.count = 0
    _fail_outbox_inserts(database, "outbox")

    new = record("Alice likes coffee")
    with pytest.raises(sqlite3.IntegrityError):
        insert(store, new)
    assert store.get(new.id) is None and store.history(new.id) == []

    rewritten = kept.with_text("Alice likes green tea")
    with pytest.raises(sqlite3.IntegrityError):
        store.replace(rewritten, None, entry(Event.UPDATE, rewritten, kept.text, rewritten.text, T0))
    with pytest.raises(sqlite3.IntegrityError):
        store.remove([kept.id], [entry(Event.DELETE, kept, kept.text, None, T0)])
    assert store.get(kept.id) == kept
    assert [h.event for h in store.history(kept.id)] == [Event.ADD]
    assert store.pending(10) == [] and wakeups.count == 0


def test_a_change_that_fails_leaves_no_event(sqlite_store: tuple[Database, SqliteMemoryStore, Wakeups]) -> None:
    _database, store, wakeups = sqlite_store
    memory = record("Alice likes tea")
    insert(store, memory)
    store.published([e.id for e in store.pending(10)])
    with pytest.raises(sqlite3.IntegrityError):  # its history entry is already stored: the whole write fails
        store.insert([record("Alice likes coffee")], vectors(1), [*store.history(memory.id)])
    assert store.pending(10) == [] and wakeups.count == 1


def test_a_job_end_whose_event_cannot_be_written_is_rolled_back(tmp_path: Path) -> None:
    database = Database(tmp_path / "main.sqlite3")
    try:
        store = SqliteTenancyStore(database)
        started = running(job(store))
        store.update_event(started)
        _fail_outbox_inserts(database, "platform_outbox")
        with pytest.raises(sqlite3.IntegrityError):
            store.update_event(started.changed(status=EventStatus.SUCCEEDED, completed_at=T0))
        assert store.get_event(started.project_id, started.id) == started
        assert store.pending(10) == []
    finally:
        database.close()


def test_the_tenancy_outbox_lives_beside_the_self_hosted_store_in_the_main_file(tmp_path: Path) -> None:
    database = Database(tmp_path / "main.sqlite3")
    try:
        memories = SqliteMemoryStore(database)  # the deployment's own store, in the same file, opened first
        tenancy = SqliteTenancyStore(database)
        started = running(job(tenancy))
        tenancy.update_event(started.changed(status=EventStatus.SUCCEEDED, completed_at=T0))
        insert(memories, record("Alice likes tea"))
        assert [e.type for e in tenancy.pending(10)] == ["ingest_job_completed"]
        assert memories.pending(10) == []
    finally:
        database.close()


def _write_in_namespace(namespaces: SqliteMemoryNamespaces, namespace: str, text: str) -> MemoryRecord:
    memory = record(text)
    insert(namespaces.open(namespace).store, memory)
    return memory


def test_a_namespace_storage_is_its_outbox_when_outboxes_are_on(tmp_path: Path) -> None:
    wakeups = Wakeups()
    namespaces = SqliteMemoryNamespaces(tmp_path, outbox=True, on_outbox=wakeups, facets=english())
    plain = SqliteMemoryNamespaces(tmp_path / "plain", facets=english())
    try:
        storage = namespaces.open("proj_a")
        assert isinstance(storage.store, SqliteMemoryStore) and storage.outbox is storage.store
        memory = _write_in_namespace(namespaces, "proj_a", "Alice likes tea")
        assert storage.outbox is not None
        assert [(e.namespace, e.payload["event_details"]["id"]) for e in storage.outbox.pending(10)] == [
            ("proj_a", memory.id)
        ]
        assert wakeups.count == 1
        assert namespaces.outboxes() == [storage.outbox]
        assert plain.open("proj_a").outbox is None
        _write_in_namespace(plain, "proj_a", "Alice likes tea")
        assert plain.outboxes() == []
    finally:
        namespaces.close()
        plain.close()


def test_a_restarted_process_finds_the_events_a_closed_namespace_file_holds(tmp_path: Path) -> None:
    before = SqliteMemoryNamespaces(tmp_path, outbox=True, facets=english())
    written = _write_in_namespace(before, "proj_a", "Alice likes tea")
    before.open("proj_quiet")  # a namespace without events
    _write_in_namespace(before, "proj_drained", "Bob likes coffee")
    drained_outbox = before.open("proj_drained").outbox
    assert drained_outbox is not None
    drained_outbox.published([e.id for e in drained_outbox.pending(10)])
    before.close()
    (tmp_path / "proj_old.sqlite3").touch()  # a file from before outboxes (no table): tolerated
    with sqlite3.connect(tmp_path / "proj_older.sqlite3") as conn:
        conn.execute("CREATE TABLE memories (id TEXT)")
    conn.close()
    (tmp_path / "proj_broken.sqlite3").write_bytes(b"not a database at all" * 100)

    after = SqliteMemoryNamespaces(tmp_path, outbox=True, facets=english())
    try:
        (found,) = after.outboxes()
        assert [(e.namespace, e.payload["event_details"]["id"]) for e in found.pending(10)] == [("proj_a", written.id)]
        assert found is after.open("proj_a").outbox  # opened through open(): the one storage of the namespace
        found.published([e.id for e in found.pending(10)])
        assert after.outboxes() == [found]  # open now: listed even when empty
    finally:
        after.close()
    assert SqliteMemoryNamespaces(tmp_path, outbox=True, facets=english()).outboxes() == []  # nothing left to find


def test_a_dropped_namespace_takes_its_outbox_with_it(tmp_path: Path) -> None:
    namespaces = SqliteMemoryNamespaces(tmp_path, outbox=True, facets=english())
    try:
        _write_in_namespace(namespaces, "proj_a", "Alice likes tea")
        kept = _write_in_namespace(namespaces, "proj_b", "Bob likes coffee")
        namespaces.drop("proj_a")
        assert not (tmp_path / "proj_a.sqlite3").exists()
        (outbox,) = namespaces.outboxes()
        assert [e.payload["event_details"]["id"] for e in outbox.pending(10)] == [kept.id]
        assert not (tmp_path / "proj_a.sqlite3").exists()  # not made again by looking for outboxes
    finally:
        namespaces.close()


# ---- the AWS backend: the events travel in the change's own transaction; one partition holds the deployment's --


class RecordingClient:
    """A DynamoDB client that keeps the TransactItems of each TransactWriteItems call."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped
        self.transactions: list[list[dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._wrapped, name)
        if name != "transact_write_items":
            return method

        def call(**kwargs: Any) -> Any:
            self.transactions.append(kwargs["TransactItems"])
            return method(**kwargs)

        return call


@pytest.fixture
def dynamodb() -> Iterator[RecordingClient]:
    with mock_aws():
        client = RecordingClient(moto_aws.client("dynamodb"))
        create_memory_table(client, "outbox-memories")
        yield client


def _puts(transaction: list[dict[str, Any]], pk_prefix: str) -> list[dict[str, Any]]:
    items = (a["Put"]["Item"] for a in transaction if "Put" in a)
    return [i for i in items if i["pk"]["S"].startswith(pk_prefix)]


def test_on_dynamodb_each_transaction_of_a_large_insert_carries_the_events_of_its_own_memories(
    dynamodb: RecordingClient,
) -> None:
    store = DynamoMemoryStore(dynamodb, "outbox-memories", namespace=NAMESPACE, outbox=True)
    memories = [record(f"fact {i}", categories=("facts",) if i % 2 else ()) for i in range(40)]
    insert(store, *memories)
    assert len(dynamodb.transactions) > 1 and all(len(t) <= 100 for t in dynamodb.transactions)
    for transaction in dynamodb.transactions:
        stored = {i["id"]["S"] for i in _puts(transaction, f"NS#{NAMESPACE}#MEM#") if i["sk"]["S"] == "MEM"}
        events = [json.loads(i["payload"]["S"])["event_details"] for i in _puts(transaction, "OUTBOX")]
        assert {e.get("id") or e.get("memory_id") for e in events} == stored
    pending = store.pending(1_000)
    assert [e.type for e in pending].count("memory_add") == 40 and len(pending) == 60
    assert [e.position for e in pending] == sorted(e.position for e in pending)


def test_on_dynamodb_a_write_whose_transaction_is_cancelled_leaves_no_event(dynamodb: RecordingClient) -> None:
    store = DynamoMemoryStore(dynamodb, "outbox-memories", namespace=NAMESPACE, outbox=True)
    first = record("Alice likes tea")
    insert(store, first)
    store.published([e.id for e in store.pending(10)])
    with pytest.raises(DuplicateMemoryError):  # the same text in the same scope: the claim is taken
        insert(store, record("Alice likes tea"))
    gone = record("never stored")
    store.remove([gone.id], [entry(Event.DELETE, gone, gone.text, None, T0)])  # nothing to remove: no event
    assert store.pending(10) == []


def test_on_dynamodb_the_deployments_outbox_is_one_partition_of_every_namespace(dynamodb: RecordingClient) -> None:
    stores = {
        ns: DynamoMemoryStore(dynamodb, "outbox-memories", namespace=ns, outbox=True) for ns in ("proj_a", "proj_b")
    }
    insert(stores["proj_a"], record("Alice likes tea"))
    insert(stores["proj_b"], record("Bob likes coffee"))
    insert(stores["proj_a"], record("Alice likes cake"))
    plain = DynamoMemoryStore(dynamodb, "outbox-memories")
    insert(plain, record("a self-hosted memory"))
    plain.clear()  # the self-hosted reset leaves the platform's events
    stores["proj_b"].clear(settings=True)  # so does a project's drop: its event finds no webhook later

    deployment = memories_outbox(dynamodb, "outbox-memories")
    pending = deployment.pending(10)
    assert [e.namespace for e in pending] == ["proj_a", "proj_b", "proj_a"]
    assert [e.namespace for e in stores["proj_a"].pending(10)] == ["proj_a", "proj_a"]
    assert stores["proj_a"].pending(1) == pending[:1]
    # another process (no memory of what was read) forgets events by id alone
    memories_outbox(dynamodb, "outbox-memories").published([pending[1].id, "unknown"])
    assert deployment.pending(10) == [pending[0], pending[2]]


def test_on_dynamodb_the_same_job_end_makes_one_event_even_once_published() -> None:
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_accounts_table(client, "outbox-accounts")
        tenancy = DynamoTenancyStore(client, "outbox-accounts", outbox=True)
        started = running(job(tenancy))
        tenancy.update_event(started)
        done = started.changed(status=EventStatus.SUCCEEDED, completed_at=T0)
        assert tenancy.update_event(done)
        (written,) = tenancy.pending(10)
        tenancy.published([written.id])
        assert tenancy.update_event(done.changed(results=[{"id": "m1", "event": "ADD"}]))  # a redelivered job
        assert tenancy.pending(10) == []
        assert tenancy.get_event(done.project_id, done.id) == done.changed(results=[{"id": "m1", "event": "ADD"}])
        plain = DynamoTenancyStore(client, "outbox-accounts")  # no outbox (the CLI's): writes no event
        again = running(job(plain))
        plain.update_event(again.changed(status=EventStatus.FAILED, completed_at=T0))
        assert tenancy.pending(10) == [] and plain.pending(10) == []


def test_a_relay_sharing_the_data_dir_finds_the_events_another_process_writes_in_a_namespace_it_has_not_opened(
    tmp_path: Path,
) -> None:
    # mnemo serve --workers N: the relay runs in one process, the writes in any
    relaying = SqliteMemoryNamespaces(tmp_path, outbox=True, facets=english(), shared=True)
    other = SqliteMemoryNamespaces(tmp_path, outbox=True, facets=english())
    try:
        assert relaying.outboxes() == []
        written = _write_in_namespace(other, "proj_new", "Alice likes tea")  # after the relay's first look

        (found,) = relaying.outboxes()
        assert [e.payload["event_details"]["id"] for e in found.pending(10)] == [written.id]
    finally:
        other.close()
        relaying.close()
