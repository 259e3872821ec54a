"""The AccessLog contract (mnemo.ports.memory_access): every adapter passes this one suite — SQLite (a table of
the namespace's file), DynamoDB under moto (items in the memories table), and DynamoDB in a namespace of a table
that also holds another namespace's and the plain store's memories and accesses, under the same memory ids."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.access_log import DynamoAccessLog
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.sqlite.access_log import SqliteAccessLog
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope
from mnemo.ports.memory_access import KEPT_ACCESSES, AccessLog
from mnemo.ports.memory_store import MemoryStore
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_memory_table

T0 = datetime(2025, 6, 1, 8, 0, tzinfo=UTC)
TABLE = "mnemo-contract"


@dataclass
class Backend:
    store: MemoryStore
    log: AccessLog
    other: AccessLog | None = None  # another namespace's log in the same table (DynamoDB), for isolation
    other_store: MemoryStore | None = None


@contextmanager
def _sqlite(tmp_path: Path) -> Iterator[Backend]:
    db = Database(tmp_path / "ns.sqlite3")
    try:
        yield Backend(SqliteMemoryStore(db), SqliteAccessLog(db))
    finally:
        db.close()


@contextmanager
def _dynamodb(tmp_path: Path) -> Iterator[Backend]:
    with mock_aws():
        client = moto_aws.OneCallAtATime(moto_aws.client("dynamodb"))
        create_memory_table(client, TABLE)
        yield Backend(DynamoMemoryStore(client, TABLE, page_size=3), DynamoAccessLog(client, TABLE, page_size=3))


@contextmanager
def _dynamodb_namespaced(tmp_path: Path) -> Iterator[Backend]:
    with mock_aws():
        client = moto_aws.OneCallAtATime(moto_aws.client("dynamodb"))
        create_memory_table(client, TABLE)
        yield Backend(
            DynamoMemoryStore(client, TABLE, page_size=3, namespace="proj_a"),
            DynamoAccessLog(client, TABLE, page_size=3, namespace="proj_a"),
            other=DynamoAccessLog(client, TABLE, page_size=3, namespace="proj_b"),
            other_store=DynamoMemoryStore(client, TABLE, page_size=3, namespace="proj_b"),
        )


ADAPTERS: dict[str, Callable[[Path], AbstractContextManager[Backend]]] = {
    "sqlite": _sqlite,
    "dynamodb": _dynamodb,
    "dynamodb-namespaced": _dynamodb_namespaced,
}


@pytest.fixture(params=list(ADAPTERS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with ADAPTERS[request.param](tmp_path) as built:
        yield built


# The adapters whose namespaces share one table (SQLite keeps each namespace in a file of its own: another
# namespace is another file, which this suite's other tests already cover by opening a fresh one).
SHARED = [name for name in ADAPTERS if name.endswith("namespaced")]


@pytest.fixture(params=SHARED)
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with ADAPTERS[request.param](tmp_path) as built:
        yield built


def stored(store: MemoryStore, count: int = 1, user: str = "alice") -> list[str]:
    records = [MemoryRecord.create(f"fact {user} {i}", Scope(user_id=user), at=T0) for i in range(count)]
    vectors = np.ones((count, 8), dtype=np.float32)
    store.insert(records, vectors, [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records])
    return [r.id for r in records]


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def test_recorded_accesses_are_read_back_newest_first(backend: Backend):
    (memory,) = stored(backend.store)
    backend.log.record({memory: [at(1), at(3)]})
    backend.log.record({memory: [at(2)]})
    assert backend.log.recent([memory]) == {memory: [at(3), at(2), at(1)]}


def test_a_memory_never_accessed_has_no_entry(backend: Backend):
    first, second = stored(backend.store, 2)
    backend.log.record({first: [at(1)]})
    assert backend.log.recent([first, second, "never-stored"]) == {first: [at(1)]}
    assert backend.log.recent([]) == {}


def test_only_the_newest_accesses_are_kept(backend: Backend):
    (memory,) = stored(backend.store)
    backend.log.record({memory: [at(m) for m in range(0, 30, 2)]})
    backend.log.record({memory: [at(m) for m in range(1, 30, 2)]})
    assert backend.log.recent([memory])[memory] == [at(m) for m in range(29, 29 - KEPT_ACCESSES, -1)]


def test_the_same_moment_recorded_twice_is_two_accesses(backend: Backend):
    (memory,) = stored(backend.store)
    backend.log.record({memory: [at(1)]})
    backend.log.record({memory: [at(1)]})
    assert backend.log.recent([memory]) == {memory: [at(1), at(1)]}


def test_many_memories_are_recorded_and_read_in_one_call_each(backend: Backend):
    memories = stored(backend.store, 120)  # more than a DynamoDB batch read (100) or transaction takes
    backend.log.record({memory_id: [at(n % 7)] for n, memory_id in enumerate(memories)})
    found = backend.log.recent(memories)
    assert found == {memory_id: [at(n % 7)] for n, memory_id in enumerate(memories)}


def test_a_memory_that_does_not_exist_gets_no_accesses(backend: Backend):
    (kept, deleted) = stored(backend.store, 2)
    backend.store.remove([deleted], [])
    backend.log.record({kept: [at(1)], deleted: [at(1)], "never-stored": [at(1)]})
    assert backend.log.recent([kept, deleted, "never-stored"]) == {kept: [at(1)]}


def test_forgotten_memories_lose_their_accesses(backend: Backend):
    first, second = stored(backend.store, 2)
    backend.log.record({first: [at(1)], second: [at(2)]})
    backend.log.forget([first, "never-stored"])
    assert backend.log.recent([first, second]) == {second: [at(2)]}
    backend.log.forget([])


def test_clear_drops_every_access(backend: Backend):
    memories = stored(backend.store, 3)
    backend.log.record({memory_id: [at(1)] for memory_id in memories})
    backend.log.clear()
    assert backend.log.recent(memories) == {}


def test_concurrent_records_of_one_memory_lose_no_access(backend: Backend):
    (memory,) = stored(backend.store)

    def record(offset: int) -> None:
        for n in range(4):
            backend.log.record({memory: [at(offset + 10 * n)]})

    threads = [threading.Thread(target=record, args=(offset,)) for offset in (1, 2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(backend.log.recent([memory])[memory]) == sorted(at(o + 10 * n) for o in (1, 2, 3) for n in range(4))


def test_another_namespace_never_sees_nor_clears_these_accesses(shared: Backend):
    backend = shared
    assert backend.other is not None and backend.other_store is not None
    record = MemoryRecord.create("the same memory in both", Scope(user_id="alice"), at=T0)
    for store in (backend.store, backend.other_store):  # the same id, stored in each namespace
        store.insert([record], np.ones((1, 8), dtype=np.float32), [])
    backend.log.record({record.id: [at(1)]})
    backend.other.record({record.id: [at(5)]})
    assert backend.log.recent([record.id]) == {record.id: [at(1)]}
    assert backend.other.recent([record.id]) == {record.id: [at(5)]}
    backend.other.clear()
    backend.other.forget([record.id])
    assert backend.log.recent([record.id]) == {record.id: [at(1)]}
