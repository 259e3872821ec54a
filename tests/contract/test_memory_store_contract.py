"""The MemoryStore contract: every adapter of the port must pass this one suite.

To add an adapter (e.g. DynamoDB), write a context manager that builds it on a fresh, empty backend and
register it in ADAPTERS; every test below then runs against it too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain.filters import parse
from mnemo.domain.memory import (
    Event,
    HistoryEntry,
    LifecycleState,
    MemoryRecord,
    Scope,
    SourceMessage,
    new_id,
    text_hash,
)
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_store import MemoryStore
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_memory_table

DIMENSION = 384
T0 = datetime(2024, 5, 17, 9, 30, 15, 123456, tzinfo=UTC)


@contextmanager
def _sqlite_store(tmp_path: Path) -> Iterator[MemoryStore]:
    db = Database(tmp_path / "x.sqlite3")
    try:
        yield SqliteMemoryStore(db)
    finally:
        db.close()


@contextmanager
def _dynamodb_store(tmp_path: Path) -> Iterator[MemoryStore]:
    """DynamoDB under moto; pages of 3 items, so that every query and scan below runs over several pages."""
    with mock_aws():
        client = moto_aws.OneCallAtATime(moto_aws.client("dynamodb"))
        create_memory_table(client, "mnemo-contract")
        yield DynamoMemoryStore(client, "mnemo-contract", page_size=3)


@contextmanager
def _dynamodb_namespaced_store(tmp_path: Path) -> Iterator[MemoryStore]:
    """A platform project's store (namespace "proj_a") in a table that already holds the plain store's and another
    namespace's memories, with the same texts, users and ids where ids can repeat: the contract must hold as if
    the namespace were alone in the table."""
    with mock_aws():
        client = moto_aws.OneCallAtATime(moto_aws.client("dynamodb"))
        create_memory_table(client, "mnemo-contract")
        for noise in (
            DynamoMemoryStore(client, "mnemo-contract"),
            DynamoMemoryStore(client, "mnemo-contract", namespace="proj_b"),
        ):
            records = [MemoryRecord.create(t, Scope(user_id="alice", agent_id="a1", run_id="r1")) for t in ("x", "y")]
            noise.insert(records, np.ones((2, 4), dtype=np.float32), [])
            noise.put_setting("shared", "noise")
        yield DynamoMemoryStore(client, "mnemo-contract", page_size=3, namespace="proj_a")


ADAPTERS: dict[str, Callable[[Path], AbstractContextManager[MemoryStore]]] = {
    "sqlite": _sqlite_store,
    "dynamodb": _dynamodb_store,
    "dynamodb-namespaced": _dynamodb_namespaced_store,
}
# Writes per thread in the concurrency test. moto answers each DynamoDB call by scanning (and, in transactions,
# copying) its whole table in Python, so its run is smaller: it checks the adapter's thread safety; DynamoDB's
# own concurrency is not moto's to show.
WRITES_PER_THREAD = {"dynamodb": 3, "dynamodb-namespaced": 3}


@pytest.fixture(params=list(ADAPTERS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    with ADAPTERS[request.param](tmp_path) as built:
        yield built


# ---- helpers -------------------------------------------------------------------------------------------


def vectors(count: int, seed: int = 0) -> Vectors:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((count, DIMENSION)).astype(np.float32)
    out: Vectors = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    return out


def record(
    text: str,
    *,
    user: str | None = "alice",
    agent: str | None = None,
    run: str | None = None,
    app: str | None = None,
    at: datetime = T0,
    **fields: Any,
) -> MemoryRecord:
    return MemoryRecord.create(text, Scope(user_id=user, agent_id=agent, run_id=run, app_id=app), at=at, **fields)


def add_entry(rec: MemoryRecord, at: datetime | None = None) -> HistoryEntry:
    entry = HistoryEntry.of(Event.ADD, rec, None, rec.text)
    return replace(entry, updated_at=at or rec.created_at)


def insert(store: MemoryStore, *records: MemoryRecord, seed: int = 0) -> Vectors:
    vecs = vectors(len(records), seed)
    store.insert(list(records), vecs, [add_entry(r) for r in records])
    return vecs


# ---- insert / get --------------------------------------------------------------------------------------


def test_given_a_record_with_every_field_set_when_inserted_then_get_returns_it_unchanged(store: MemoryStore):
    ist = timezone(timedelta(hours=5, minutes=30))
    full = MemoryRecord(
        id=new_id(),
        text="Ana's sister lives in Lisbon — and works as a nurse 🏥",
        hash=text_hash("Ana's sister lives in Lisbon — and works as a nurse 🏥"),
        scope=Scope(user_id="alice", agent_id="helper-bot", run_id="run-42", app_id="travel-app"),
        created_at=datetime(2023, 12, 31, 23, 59, 58, 654321, tzinfo=ist),
        updated_at=datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
        metadata={"priority": 3, "score": 0.25, "vip": True, "none": None, "tags": ["a", "b"], "nested": {"k": "ü"}},
        categories=("family", "travel"),
        actor_id="ana",
        role="user",
        attributed_to="user",
        expiration_date=date(2030, 6, 30),
        sources=(
            SourceMessage(role="user", content="My sister lives in Lisbon.", index=0, name="ana"),
            SourceMessage(role="assistant", content="Noted!", index=1),
        ),
        state=LifecycleState.SUPERSEDED,
        replaced_by="00000000-0000-0000-0000-000000000001",
    )
    store.insert([full], vectors(1), [add_entry(full)])

    got = store.get(full.id)

    assert got == full
    assert got is not None
    # Timestamps keep their microseconds and stay timezone-aware (the same instant, whatever the offset).
    assert got.created_at.tzinfo is not None and got.updated_at.tzinfo is not None
    assert got.created_at.astimezone(UTC) == datetime(2023, 12, 31, 18, 29, 58, 654321, tzinfo=UTC)
    assert got.updated_at.microsecond == 6
    assert got.sources[0].name == "ana" and got.sources[1].name is None
    assert got.metadata["nested"] == {"k": "ü"} and got.metadata["none"] is None


def test_given_a_record_with_defaults_when_inserted_then_optional_fields_come_back_empty(store: MemoryStore):
    minimal = record("The build server is called hopper.", user=None, agent="ops-bot")
    insert(store, minimal)

    got = store.get(minimal.id)

    assert got == minimal
    assert got is not None
    assert got.scope == Scope(agent_id="ops-bot")
    assert got.metadata == {} and got.categories == () and got.sources == ()
    assert got.actor_id is None and got.role is None and got.attributed_to is None
    assert got.expiration_date is None and got.replaced_by is None
    assert got.state is LifecycleState.ACTIVE
    assert got.synthesized is False and got.derived_from == ()


def test_given_a_synthesized_memory_when_inserted_and_replaced_then_its_links_to_its_sources_come_back(
    store: MemoryStore,
):
    sources = [record(t) for t in ("Runs at 6 am.", "Drinks espresso at 7 am.")]
    insert(store, *sources)
    pattern = replace(
        record("Is an early riser.", at=T0 + timedelta(seconds=1)),
        synthesized=True,
        derived_from=tuple(s.id for s in sources),
    )
    insert(store, pattern, seed=1)

    got = store.get(pattern.id)
    assert got == pattern
    assert got is not None and got.synthesized and got.derived_from == (sources[0].id, sources[1].id)
    assert store.find(parse({"user_id": "alice"}), limit=1)[0] == pattern  # a listing reads the links too

    retired = pattern.changed(state=LifecycleState.SUPERSEDED, replaced_by=sources[0].id)
    store.replace(retired, None, HistoryEntry.of(Event.DELETE, retired, retired.text, None))
    assert store.get(pattern.id) == retired


def test_given_an_immutable_memory_when_stored_listed_and_replaced_then_it_stays_immutable(store: MemoryStore):
    kept = replace(record("Lives in Paris."), immutable=True)
    insert(store, kept, record("Likes tea.", at=T0 + timedelta(seconds=1)))

    assert store.get(kept.id) == kept
    listed = {r.id: r for r in store.find(parse({"user_id": "alice"}))}
    assert listed[kept.id].immutable and not [r for r in listed.values() if r.id != kept.id and r.immutable]
    assert store.get_many([kept.id])[kept.id].immutable
    moved = kept.changed(metadata={"checked": True})
    store.replace(moved, None, HistoryEntry.of(Event.UPDATE, moved, kept.text, kept.text))
    assert store.get(kept.id) == moved and moved.immutable


def test_given_changes_to_several_memories_when_recent_history_then_the_newest_first_across_memories(
    store: MemoryStore,
):
    def at(entry: HistoryEntry, seconds: int) -> HistoryEntry:  # each change at a moment of its own
        return replace(entry, updated_at=T0 + timedelta(seconds=seconds))

    tea, coffee = record("Likes tea."), record("Likes coffee.", at=T0 + timedelta(seconds=1))
    store.insert([tea, coffee], vectors(2, 0), [at(add_entry(tea), 0), at(add_entry(coffee), 1)])
    later = tea.with_text("Likes green tea.", at=T0 + timedelta(seconds=2))
    store.replace(later, None, at(HistoryEntry.of(Event.UPDATE, later, tea.text, later.text), 2))
    store.remove([coffee.id], [at(HistoryEntry.of(Event.DELETE, coffee, coffee.text, None), 3)])

    newest = store.recent_history(10)
    assert [(e.memory_id, e.event) for e in newest] == [
        (coffee.id, Event.DELETE),
        (tea.id, Event.UPDATE),
        (coffee.id, Event.ADD),
        (tea.id, Event.ADD),
    ]
    assert [e.event for e in store.recent_history(2)] == [Event.DELETE, Event.UPDATE]
    assert store.recent_history(0) == []


def test_given_an_unknown_id_when_get_then_none(store: MemoryStore):
    insert(store, record("I like tea."))

    assert store.get(new_id()) is None


def test_given_stored_records_when_get_many_then_only_existing_ids_are_returned_keyed_by_id(store: MemoryStore):
    first, second, third = record("one fact"), record("two fact"), record("three fact")
    insert(store, first, second, third)
    # More ids than fit in one query batch, with existing ids at the start, middle and end.
    wanted = [first.id, *(new_id() for _ in range(600)), second.id, *(new_id() for _ in range(400)), third.id]

    got = store.get_many(wanted)

    assert got == {first.id: first, second.id: second, third.id: third}
    assert store.get_many([]) == {}


# ---- replace / vectors ---------------------------------------------------------------------------------


def scanned(store: MemoryStore, batch_size: int = 1000) -> dict[str, tuple[MemoryRecord, Vectors]]:
    out: dict[str, tuple[MemoryRecord, Vectors]] = {}
    for records, vecs in store.scan(batch_size):
        assert len(records) == len(vecs)
        for rec, vec in zip(records, vecs, strict=True):
            assert rec.id not in out, "scan returned a memory twice"
            out[rec.id] = (rec, vec)
    return out


def test_given_a_memory_when_replaced_without_vector_then_fields_change_and_embedding_is_kept(store: MemoryStore):
    original = record("I live in Porto.", metadata={"source": "chat"})
    vecs = insert(store, original)
    later = T0 + timedelta(days=1, microseconds=17)
    changed = original.with_text("I live in Lisbon.", at=later)
    changed = replace(changed, metadata={"source": "import"}, categories=("home",), expiration_date=date(2031, 1, 1))

    store.replace(changed, None, HistoryEntry.of(Event.UPDATE, changed, original.text, changed.text))

    assert store.get(original.id) == changed
    rec, vec = scanned(store)[original.id]
    assert rec == changed
    np.testing.assert_array_equal(vec, vecs[0])


def test_given_a_memory_when_replaced_with_vector_then_the_embedding_is_overwritten(store: MemoryStore):
    original = record("I live in Porto.")
    insert(store, original)
    changed = original.changed(state=LifecycleState.SUPERSEDED, replaced_by="other-id", updated_at=T0 + timedelta(1))
    new_vector = vectors(1, seed=99)[0]

    store.replace(changed, new_vector, HistoryEntry.of(Event.UPDATE, changed, original.text, original.text))

    rec, vec = scanned(store)[original.id]
    assert rec.state is LifecycleState.SUPERSEDED and rec.replaced_by == "other-id"
    np.testing.assert_array_equal(vec, new_vector)
    assert [h.event for h in store.history(original.id)] == [Event.ADD, Event.UPDATE]


def test_given_memories_when_set_vectors_then_scan_returns_the_new_vectors_exactly(store: MemoryStore):
    records = [record(f"fact number {i}", at=T0 + timedelta(minutes=i)) for i in range(5)]
    old = insert(store, *records, seed=1)
    new = vectors(2, seed=2)

    store.set_vectors([records[1].id, records[3].id], new)

    # A small batch size makes the scan page through several batches.
    result = scanned(store, batch_size=2)
    assert set(result) == {r.id for r in records}
    expected = {records[0].id: old[0], records[1].id: new[0], records[2].id: old[2], records[3].id: new[1]}
    expected[records[4].id] = old[4]
    for memory_id, (rec, vec) in result.items():
        assert vec.dtype == np.float32 and vec.shape == (DIMENSION,)
        np.testing.assert_array_equal(vec, expected[memory_id])
        assert rec == next(r for r in records if r.id == memory_id)


def test_given_an_empty_store_when_scanned_then_no_batches(store: MemoryStore):
    assert list(store.scan()) == []


def test_given_many_memories_when_scanned_in_batches_then_batches_respect_the_size(store: MemoryStore):
    records = [record(f"fact {i}") for i in range(7)]
    insert(store, *records)

    sizes = [len(batch) for batch, _ in store.scan(batch_size=3)]

    assert sizes == [3, 3, 1]


# ---- remove / history ----------------------------------------------------------------------------------


def test_given_a_memory_when_removed_then_it_is_gone_but_its_history_is_kept(store: MemoryStore):
    doomed, kept = record("I drive a red car."), record("I ride a blue bike.")
    insert(store, doomed, kept)
    deletion = replace(HistoryEntry.of(Event.DELETE, doomed, doomed.text, None), updated_at=T0 + timedelta(hours=1))

    store.remove([doomed.id], [deletion])

    assert store.get(doomed.id) is None
    assert store.get(kept.id) == kept
    assert store.count(parse(None)) == 1
    assert doomed.id not in scanned(store)
    history = store.history(doomed.id)
    assert [h.event for h in history] == [Event.ADD, Event.DELETE]
    assert history[-1] == replace(deletion, old_memory=None)  # kept without its text: a delete erases
    assert history[-1].is_deleted and history[-1].old_memory is None and history[-1].new_memory is None
    assert store.history(kept.id)[0].new_memory == "I ride a blue bike."


def test_given_add_update_delete_when_history_is_read_then_entries_come_oldest_first(store: MemoryStore):
    original = record("I work at Acme.", actor_id="ana", role="user")
    other = record("Unrelated memory.")
    add = add_entry(original, at=T0 + timedelta(microseconds=1))
    store.insert([original, other], vectors(2), [add, add_entry(other)])
    updated = original.with_text("I work at Globex.", at=T0 + timedelta(days=1))
    update = replace(
        HistoryEntry.of(Event.UPDATE, updated, original.text, updated.text), updated_at=T0 + timedelta(days=1)
    )
    store.replace(updated, None, update)
    delete = replace(
        HistoryEntry.of(Event.DELETE, updated, updated.text, None), updated_at=T0 + timedelta(days=2, microseconds=5)
    )
    assert [(h.old_memory, h.new_memory) for h in store.history(original.id)] == [
        (None, "I work at Acme."),
        ("I work at Acme.", "I work at Globex."),
    ]  # while the memory exists, its history keeps the texts of its changes

    said = store.remove([original.id], [delete])

    history = store.history(original.id)
    assert sorted(said) == ["I work at Acme.", "I work at Globex."]
    assert [h.event for h in history] == [Event.ADD, Event.UPDATE, Event.DELETE]
    assert [(h.old_memory, h.new_memory) for h in history] == [(None, None)] * 3  # once deleted, no text is left
    assert [h.id for h in history] == [add.id, update.id, delete.id]
    assert [h.updated_at for h in history] == [add.updated_at, update.updated_at, delete.updated_at]
    assert [h.is_deleted for h in history] == [False, False, True]
    assert all(h.actor_id == "ana" and h.role == "user" for h in history)
    assert history[1].updated_at == T0 + timedelta(days=1)
    assert store.history(new_id()) == []


def test_given_a_memory_moved_back_in_time_when_history_is_read_then_entries_keep_their_write_order(
    store: MemoryStore,
):
    original = record("I moved to Lisbon.")
    add = add_entry(original, at=T0)
    store.insert([original], vectors(1), [add])
    earlier = original.changed(created_at=T0 - timedelta(days=400), updated_at=T0 + timedelta(hours=1))
    moved = replace(HistoryEntry.of(Event.UPDATE, earlier, original.text, original.text), updated_at=earlier.updated_at)

    store.replace(earlier, None, moved)

    assert store.get(original.id) == earlier
    assert [h.id for h in store.history(original.id)] == [add.id, moved.id]
    assert [r.id for r in store.find(parse({"created_at": {"lt": T0.isoformat()}}))] == [original.id]


# ---- find / count --------------------------------------------------------------------------------------


@pytest.fixture
def corpus(store: MemoryStore) -> dict[str, MemoryRecord]:
    """Five memories of two users, inserted in an order that differs from their creation order."""
    day = timedelta(days=1)
    items = {
        "hiking": record(
            "I go hiking in the Alps.",
            at=T0 + 3 * day,
            metadata={"topic": "sport", "priority": 3},
            categories=("hobbies", "travel"),
        ),
        "curry": record(
            "I cook Thai curry.", at=T0 + 1 * day, metadata={"topic": "food", "priority": 1}, categories=("food",)
        ),
        "novels": record(
            "I read science fiction.", at=T0 + 4 * day, metadata={"topic": "books"}, categories=("hobbies",)
        ),
        "porto": record("Grandma lives in Porto.", at=T0 + 2 * day, categories=("family", "travel")),
        "chess": record(
            "I play chess online.", user="bob", at=T0 + 5 * day, metadata={"topic": "sport"}, categories=("hobbies",)
        ),
    }
    insert(store, *items.values())
    return items


def names(found: list[MemoryRecord], corpus: dict[str, MemoryRecord]) -> list[str]:
    by_id = {r.id: name for name, r in corpus.items()}
    return [by_id[r.id] for r in found]


def test_given_memories_when_found_by_user_then_newest_first(store: MemoryStore, corpus: dict[str, MemoryRecord]):
    found = store.find(parse({"user_id": "alice"}))

    assert names(found, corpus) == ["novels", "hiking", "porto", "curry"]
    assert found[0] == corpus["novels"]


def test_given_memories_when_found_with_limit_and_offset_then_a_page_of_the_newest_first_order(
    store: MemoryStore, corpus: dict[str, MemoryRecord]
):
    alice = parse({"user_id": "alice"})

    assert names(store.find(alice, limit=2), corpus) == ["novels", "hiking"]
    assert names(store.find(alice, limit=2, offset=1), corpus) == ["hiking", "porto"]
    assert names(store.find(alice, offset=3), corpus) == ["curry"]
    assert store.find(alice, limit=2, offset=10) == []
    assert store.find(alice, limit=0) == []
    assert names(store.find(parse(None), limit=1), corpus) == ["chess"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, ["chess", "novels", "hiking", "porto", "curry"]),
        ({"user_id": "bob"}, ["chess"]),
        ({"user_id": ["alice", "bob"], "metadata": {"topic": "sport"}}, ["chess", "hiking"]),
        ({"user_id": "alice", "metadata.priority": {"gte": 2}}, ["hiking"]),
        ({"categories": "travel"}, ["hiking", "porto"]),
        ({"categories": {"in": ["food", "family"]}}, ["porto", "curry"]),
        ({"user_id": "alice", "categories": {"nin": ["hobbies"]}}, ["porto", "curry"]),
        ({"created_at": {"gte": str(T0 + timedelta(days=2)), "lt": str(T0 + timedelta(days=4))}}, ["hiking", "porto"]),
        ({"created_at": {"gt": "2024-05-21"}}, ["chess", "novels"]),
        ({"OR": [{"user_id": "bob"}, {"metadata": {"topic": "food"}}]}, ["chess", "curry"]),
        ({"user_id": "alice", "NOT": {"categories": "hobbies"}}, ["porto", "curry"]),
        ({"NOT": [{"categories": "hobbies"}, {"categories": "food"}]}, ["porto"]),
        ({"memory": {"icontains": "PORTO"}}, ["porto"]),
        ({"AND": [{"user_id": "alice"}, {"user_id": "bob"}]}, []),
        ({"user_id": "carol"}, []),
    ],
)
def test_given_memories_when_found_with_a_filter_then_exactly_the_matching_ones_newest_first(
    store: MemoryStore, corpus: dict[str, MemoryRecord], raw: dict[str, Any] | None, expected: list[str]
):
    expr = parse(raw)

    assert names(store.find(expr), corpus) == expected
    assert store.count(expr) == len(expected)


def test_given_ids_when_found_by_id_then_only_those(store: MemoryStore, corpus: dict[str, MemoryRecord]):
    expr = parse({"memory_ids": [corpus["curry"].id, corpus["chess"].id]})

    assert names(store.find(expr), corpus) == ["chess", "curry"]


def test_given_an_empty_store_when_counted_then_zero(store: MemoryStore):
    assert store.count(parse(None)) == 0
    assert store.find(parse({"user_id": "alice"})) == []


# ---- find_by_hash --------------------------------------------------------------------------------------


def test_given_a_memory_when_found_by_hash_then_only_with_its_exact_scope(store: MemoryStore):
    mem = MemoryRecord.create("I like tea.", Scope(user_id="alice", agent_id="bot"), at=T0)
    insert(store, mem)

    assert store.find_by_hash(Scope(user_id="alice", agent_id="bot"), mem.hash) == mem
    # A narrower, wider or different scope is a different memory space.
    assert store.find_by_hash(Scope(user_id="alice"), mem.hash) is None
    assert store.find_by_hash(Scope(agent_id="bot"), mem.hash) is None
    assert store.find_by_hash(Scope(user_id="alice", agent_id="bot", run_id="r1"), mem.hash) is None
    assert store.find_by_hash(Scope(user_id="bob", agent_id="bot"), mem.hash) is None
    assert store.find_by_hash(Scope(user_id="alice", agent_id="bot"), text_hash("I like coffee.")) is None


def test_given_a_superseded_memory_when_found_by_hash_then_it_is_ignored(store: MemoryStore):
    old = record("I live in Porto.", state=LifecycleState.SUPERSEDED, replaced_by="x")
    insert(store, old)

    assert store.find_by_hash(Scope(user_id="alice"), old.hash) is None

    active = record("I live in Porto.")
    insert(store, active)
    assert store.find_by_hash(Scope(user_id="alice"), old.hash) == active


# ---- clear / settings ----------------------------------------------------------------------------------


def test_given_memories_and_history_when_cleared_then_both_are_gone(store: MemoryStore):
    a, b = record("fact a"), record("fact b", user="bob")
    insert(store, a, b)

    store.clear()

    assert store.count(parse(None)) == 0
    assert store.get(a.id) is None and store.get_many([a.id, b.id]) == {}
    assert store.history(a.id) == [] and store.history(b.id) == []
    assert list(store.scan()) == []
    # The store is usable after a reset.
    c = record("fact c")
    insert(store, c)
    assert store.get(c.id) == c


def test_given_no_setting_when_read_then_none(store: MemoryStore):
    assert store.get_setting("embedder") is None


@pytest.mark.parametrize(
    "value",
    [
        {"provider": "openai", "config": {"model": "text-embedding-3-small", "dims": 1536, "on": True}},
        ["a", 1, 2.5, None, False],
        "plain string",
        42,
        True,
    ],
)
def test_given_a_setting_when_put_then_get_returns_the_same_value(store: MemoryStore, value: Any):
    store.put_setting("key", value)

    assert store.get_setting("key") == value
    assert store.get_setting("other") is None


def test_given_a_setting_when_put_again_then_the_new_value_wins(store: MemoryStore):
    store.put_setting("llm", {"provider": "bedrock"})
    store.put_setting("embedder", {"provider": "local"})

    store.put_setting("llm", {"provider": "openai", "model": "gpt-4o-mini"})

    assert store.get_setting("llm") == {"provider": "openai", "model": "gpt-4o-mini"}
    assert store.get_setting("embedder") == {"provider": "local"}


# ---- concurrency ---------------------------------------------------------------------------------------


def test_given_eight_threads_writing_and_reading_at_once_then_every_write_lands_without_errors(
    store: MemoryStore, request: pytest.FixtureRequest
):
    threads, per_thread = 8, WRITES_PER_THREAD.get(request.node.callspec.params["store"], 50)
    start = threading.Barrier(threads)

    def worker(n: int) -> list[str]:
        user = f"user-{n}"
        mine = parse({"user_id": user})
        ids: list[str] = []
        start.wait()
        for i in range(per_thread):
            rec = record(f"thread {n} fact {i}", user=user, at=T0 + timedelta(seconds=i))
            store.insert([rec], vectors(1, seed=n * 1000 + i), [add_entry(rec)])
            ids.append(rec.id)
            # Read-your-writes on this thread, while the other threads keep writing.
            assert store.get(rec.id) == rec
            assert store.count(mine) == i + 1
            store.find(parse(None), limit=5)
        return ids

    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = [future.result() for future in [pool.submit(worker, n) for n in range(threads)]]

    all_ids = [memory_id for ids in results for memory_id in ids]
    assert len(set(all_ids)) == threads * per_thread
    assert store.count(parse(None)) == threads * per_thread
    assert set(store.get_many(all_ids)) == set(all_ids)
    assert all(len(store.history(memory_id)) == 1 for memory_id in all_ids[:: threads * 5])


# ---- count by entity -----------------------------------------------------------------------------------


def test_given_memories_of_several_entities_when_counted_by_entity_then_each_id_counts_its_active_memories(
    store: MemoryStore,
):
    a1 = record("alice one", user="alice", at=T0)
    a2 = record("alice and the helper", user="alice", agent="helper", at=T0 + timedelta(hours=1))
    b = record("bob in a run", user="bob", run="r-1", at=T0 + timedelta(hours=2))
    h = record("the helper alone", user=None, agent="helper", at=T0 + timedelta(hours=3))
    gone = record("carol's superseded memory", user="carol", at=T0)
    insert(store, a1, a2, b, h, gone)
    later = T0 + timedelta(days=2)
    edited = a1.with_text("alice one, edited", at=later)
    store.replace(edited, None, HistoryEntry.of(Event.UPDATE, edited, a1.text, edited.text))
    superseded = gone.changed(state=LifecycleState.SUPERSEDED, updated_at=later)
    store.replace(superseded, None, HistoryEntry.of(Event.DELETE, superseded, gone.text, None))

    counted = [(e.type.value, e.id, e.total_memories, e.created_at, e.updated_at) for e in store.count_by_entity()]

    assert counted == [
        ("agent", "helper", 2, a2.created_at, h.updated_at),
        ("run", "r-1", 1, b.created_at, b.updated_at),
        ("user", "alice", 2, a1.created_at, later),
        ("user", "bob", 1, b.created_at, b.updated_at),
    ]


def test_given_memories_of_an_app_when_counted_by_entity_then_the_app_counts_them_alone_or_beside_a_user(
    store: MemoryStore,
):
    """An app owns memories as users, agents and runs do (alone, or beside them): the platform lists it."""
    web1 = record("prefers dark mode", user=None, app="web", at=T0)
    web2 = record("alice on the web", user="alice", app="web", at=T0 + timedelta(hours=1))
    cli = record("uses zsh", user=None, app="cli", at=T0 + timedelta(hours=2))
    dropped = record("an app's deleted note", user=None, app="old", at=T0)
    insert(store, web1, web2, cli, dropped)
    store.remove([dropped.id], [HistoryEntry.of(Event.DELETE, dropped, dropped.text, None)])
    later = T0 + timedelta(days=1)
    edited = web1.with_text("prefers a dark theme", at=later)
    store.replace(edited, None, HistoryEntry.of(Event.UPDATE, edited, web1.text, edited.text))

    counted = [(e.type.value, e.id, e.total_memories, e.created_at, e.updated_at) for e in store.count_by_entity()]

    assert counted == [
        ("app", "cli", 1, cli.created_at, cli.updated_at),
        ("app", "web", 2, web1.created_at, later),
        ("user", "alice", 1, web2.created_at, web2.updated_at),
    ]


def test_given_no_memories_when_counted_by_entity_then_there_is_none(store: MemoryStore):
    assert store.count_by_entity() == []


# SQLite only: 10,000 writes under moto take minutes. The DynamoDB adapter counts from per-entity aggregates,
# which have no cap by construction; the tests above check that they agree with the memories.
@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_given_more_than_ten_thousand_memories_when_counted_by_entity_then_none_is_left_out(store: MemoryStore):
    """Mem0's server scanned at most 10,000 memories; the count here comes from the store, whole."""
    records = [record(f"fact {i}", user=f"user-{i % 3}", at=T0 + timedelta(seconds=i)) for i in range(10_002)]
    store.insert(records, np.zeros((len(records), DIMENSION), dtype=np.float32), [])
    counted = {(e.id, e.total_memories) for e in store.count_by_entity()}
    assert counted == {("user-0", 3334), ("user-1", 3334), ("user-2", 3334)}


# ---- erasure (a delete erases: mnemo.domain.erasure) ----------------------------------------------------


def test_given_memories_of_one_add_sharing_a_message_when_one_is_removed_then_the_others_no_longer_hold_its_text(
    store: MemoryStore,
):
    message = SourceMessage("user", "I moved to Lisbon. I am allergic to peanuts.", 0, "ana")
    other = SourceMessage("user", "My cat is called Tom.", 1)
    lisbon = record("I moved to Lisbon.", sources=(message,))
    peanuts = record("I am allergic to peanuts.", sources=(message,))
    cat = record("My cat is called Tom.", sources=(other,))
    elsewhere = record("I moved to Lisbon.", user="bob", sources=(message,))  # another add: no sibling of these
    insert(store, lisbon, peanuts, cat)
    insert(store, elsewhere)

    store.remove([peanuts.id], [HistoryEntry.of(Event.DELETE, peanuts, None, None)])

    sibling = store.get(lisbon.id)
    assert sibling is not None and sibling.text == "I moved to Lisbon."
    assert sibling.sources == (SourceMessage("user", "", 0, "ana", redacted=True),)  # its place kept, not its words
    assert store.get(cat.id) == cat
    assert store.get(elsewhere.id) == elsewhere
    assert sibling == store.get_many([lisbon.id])[lisbon.id]
    assert [s.content for s in store.find(parse({"user_id": "alice"}))[0].sources] in ([""], ["My cat is called Tom."])


def test_given_memories_of_one_add_when_all_are_removed_together_then_nothing_is_left_to_redact(store: MemoryStore):
    message = SourceMessage("user", "I moved to Lisbon. I am allergic to peanuts.", 0)
    lisbon, peanuts = record("I moved to Lisbon.", sources=(message,)), record("Peanuts.", sources=(message,))
    insert(store, lisbon, peanuts)

    said = store.remove(
        [lisbon.id, peanuts.id], [HistoryEntry.of(Event.DELETE, r, None, None) for r in (lisbon, peanuts)]
    )

    assert store.get_many([lisbon.id, peanuts.id]) == {}
    assert sorted(said) == ["I moved to Lisbon.", "Peanuts."]
    assert [h.new_memory for h in store.history(lisbon.id)] == [None, None]


def test_given_a_removal_when_purged_then_the_store_stays_readable(store: MemoryStore):
    doomed, kept = record("I drive a red car."), record("I ride a blue bike.")
    insert(store, doomed, kept)
    store.remove([doomed.id], [HistoryEntry.of(Event.DELETE, doomed, None, None)])

    store.purge()
    store.purge()

    assert store.get(kept.id) == kept and store.get(doomed.id) is None
