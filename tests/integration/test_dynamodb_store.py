"""DynamoMemoryStore specifics under moto, beyond the shared contract: the table, races between processes
(conditional writes), retries of unprocessed batch items and transaction conflicts, paging, and which index
a filter reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from mnemo.adapters.dynamodb import items
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.dynamodb.operations import UnprocessedError, item_size
from mnemo.domain.entities import EntityType
from mnemo.domain.filters import parse
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope, SourceMessage
from mnemo.errors import ConflictError, NotFoundError, PayloadTooLargeError
from mnemo.ports.embedder import Vectors, unit_rows
from mnemo.ports.memory_store import DuplicateMemoryError
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_memory_table

TABLE = "mnemo-test"
T0 = datetime(2024, 5, 17, 9, 30, 15, 123456, tzinfo=UTC)
Fault = Exception | Callable[[Callable[..., Any], dict[str, Any]], Any]


class Recording:
    """A boto3 client that records every call, and can answer a call with a scripted fault instead."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.faults: dict[str, list[Fault]] = {}

    def fault(self, operation: str, *faults: Fault) -> None:
        self.faults.setdefault(operation, []).extend(faults)

    def named(self, operation: str) -> list[dict[str, Any]]:
        return [kwargs for name, kwargs in self.calls if name == operation]

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)

        def call(**kwargs: Any) -> Any:
            self.calls.append((name, kwargs))
            pending = self.faults.get(name)
            if pending:
                fault = pending.pop(0)
                if isinstance(fault, Exception):
                    raise fault
                return fault(method, kwargs)
            return method(**kwargs)

        return call


@pytest.fixture
def client() -> Iterator[Recording]:
    with mock_aws():
        raw = moto_aws.client("dynamodb")
        create_memory_table(raw, TABLE)
        yield Recording(raw)


@pytest.fixture
def store(client: Recording) -> DynamoMemoryStore:
    return DynamoMemoryStore(client, TABLE, sleep=lambda _: None)


def vectors(count: int, seed: int = 0) -> Vectors:
    return unit_rows(np.random.default_rng(seed).standard_normal((count, 384)))


def record(text: str, user: str | None = "alice", **fields: Any) -> MemoryRecord:
    scope = Scope(user_id=user, agent_id=fields.pop("agent", None), run_id=fields.pop("run", None))
    return MemoryRecord.create(text, scope, at=fields.pop("at", T0), **fields)


def add(store: DynamoMemoryStore, *records: MemoryRecord) -> None:
    store.insert(list(records), vectors(len(records)), [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records])


def transaction_bytes(client: Recording) -> list[int]:
    """The bytes each TransactWriteItems call put (DynamoDB takes 4 MB at most; moto does not check)."""
    return [
        sum(item_size(action["Put"]["Item"]) for action in call["TransactItems"] if "Put" in action)
        for call in client.named("transact_write_items")
    ]


def entities(store: DynamoMemoryStore) -> list[tuple[str, str, int, datetime, datetime]]:
    return [(e.type.value, e.id, e.total_memories, e.created_at, e.updated_at) for e in store.count_by_entity()]


# ---- the table ---------------------------------------------------------------------------------------


def test_given_a_table_when_created_again_then_nothing_changes(client: Recording):
    assert create_memory_table(client, TABLE) is False

    table = client.describe_table(TableName=TABLE)["Table"]
    assert [k["AttributeName"] for k in table["KeySchema"]] == ["pk", "sk"]
    indexes = {i["IndexName"]: [k["AttributeName"] for k in i["KeySchema"]] for i in table["GlobalSecondaryIndexes"]}
    assert indexes == {
        "by_user": ["user_pk", "created_sk"],
        "by_agent": ["agent_pk", "created_sk"],
        "by_run": ["run_pk", "created_sk"],
        "by_time": ["time_pk", "created_sk"],
        "entities": ["ent_pk", "entity_id"],
        "by_namespace": ["ns_pk"],
    }


def test_given_a_client_when_the_store_is_built_then_it_calls_nothing(client: Recording):
    client.calls.clear()

    DynamoMemoryStore(client, TABLE)

    assert client.calls == []


def test_given_a_memory_when_stored_then_its_embedding_is_float32_bytes(store: DynamoMemoryStore, client: Recording):
    memory, vector = record("I like tea."), vectors(1, seed=3)
    store.insert([memory], vector, [])

    item = client.get_item(TableName=TABLE, Key=items.memory_key(memory.id))["Item"]

    assert len(item["vec"]["B"]) == 384 * 4
    np.testing.assert_array_equal(np.frombuffer(item["vec"]["B"], dtype=np.float32), vector[0])


# ---- races between processes -------------------------------------------------------------------------


def test_given_two_processes_adding_the_same_text_when_both_checked_first_then_only_one_memory_is_stored(
    client: Recording,
):
    first, second = DynamoMemoryStore(client, TABLE), DynamoMemoryStore(client, TABLE)
    mine, theirs = record("I like tea."), record("I like tea.")
    assert first.find_by_hash(mine.scope, mine.hash) is None
    assert second.find_by_hash(theirs.scope, theirs.hash) is None

    add(first, mine)
    with pytest.raises(DuplicateMemoryError) as raised:
        add(second, theirs)

    assert raised.value.memory_id == mine.id
    assert second.get(theirs.id) is None and second.history(theirs.id) == []
    assert second.find_by_hash(theirs.scope, theirs.hash) == mine
    assert [(e[1], e[2]) for e in entities(second)] == [("alice", 1)]


def test_given_the_same_text_in_other_scopes_when_added_then_each_is_its_own_memory(store: DynamoMemoryStore):
    add(store, record("I like tea."), record("I like tea.", user="bob"), record("I like tea.", agent="bot"))

    assert store.count(parse(None)) == 3


def test_given_two_active_copies_in_one_batch_when_inserted_then_refused_and_nothing_stored(store: DynamoMemoryStore):
    with pytest.raises(DuplicateMemoryError):
        add(store, record("I like tea."), record("I like tea."))

    assert store.count(parse(None)) == 0


def test_given_an_existing_id_when_inserted_again_then_a_conflict_not_an_overwrite(store: DynamoMemoryStore):
    memory = record("I like tea.")
    add(store, memory)

    with pytest.raises(ConflictError) as raised:
        add(store, replace(memory, text="Overwritten?", hash="other"))

    assert type(raised.value) is ConflictError
    assert store.get(memory.id) == memory


def test_given_a_claim_left_behind_when_adding_that_text_then_the_claim_is_cleared_and_the_add_succeeds(
    store: DynamoMemoryStore, client: Recording
):
    memory = record("I like tea.")
    claim = items.claim_pk(memory.scope, memory.hash)
    client.put_item(TableName=TABLE, Item=items.claim_item(claim, "a-memory-that-is-gone"))

    add(store, memory)

    assert store.find_by_hash(memory.scope, memory.hash) == memory


def test_given_an_update_to_a_text_another_memory_holds_then_the_update_still_succeeds(store: DynamoMemoryStore):
    tea, coffee = record("I like tea."), record("I like coffee.")
    add(store, tea, coffee)
    rewritten = coffee.with_text("I like tea.", at=T0 + timedelta(days=1))

    store.replace(rewritten, None, HistoryEntry.of(Event.UPDATE, rewritten, coffee.text, rewritten.text))

    assert store.get(coffee.id) == rewritten
    assert store.find_by_hash(tea.scope, tea.hash) == tea
    assert store.find_by_hash(coffee.scope, coffee.hash) is None


def test_given_a_delete_that_won_the_race_when_replacing_then_not_found_and_the_memory_stays_deleted(
    client: Recording,
):
    deleting, updating = DynamoMemoryStore(client, TABLE), DynamoMemoryStore(client, TABLE)
    memory = record("I live in Porto.")
    add(deleting, memory)
    stale = updating.get(memory.id)
    assert stale is not None
    deleting.remove([memory.id], [HistoryEntry.of(Event.DELETE, memory, memory.text, None)])

    changed = stale.with_text("I live in Lisbon.")
    with pytest.raises(NotFoundError):
        updating.replace(changed, None, HistoryEntry.of(Event.UPDATE, changed, stale.text, changed.text))

    assert updating.get(memory.id) is None
    assert [h.event for h in updating.history(memory.id)] == [Event.ADD, Event.DELETE]
    assert updating.count_by_entity() == []


def test_given_two_processes_deleting_one_memory_then_its_entity_loses_one_memory(client: Recording):
    first, second = DynamoMemoryStore(client, TABLE), DynamoMemoryStore(client, TABLE)
    doomed, kept = record("one"), record("two")
    add(first, doomed, kept)

    first.remove([doomed.id], [])
    second.remove([doomed.id], [])

    assert [(e[1], e[2]) for e in entities(first)] == [("alice", 1)]


def test_given_a_memory_changed_between_read_and_write_when_replacing_then_it_reads_again_and_applies(
    store: DynamoMemoryStore, client: Recording
):
    memory = record("I live in Porto.")
    add(store, memory)
    elsewhere = memory.changed(state=LifecycleState.SUPERSEDED, replaced_by="x", updated_at=T0 + timedelta(1))

    def change_first(method: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
        # Another process supersedes the memory right after this process read it.
        DynamoMemoryStore(client._client, TABLE).replace(
            elsewhere, None, HistoryEntry.of(Event.UPDATE, elsewhere, memory.text, memory.text)
        )
        return method(**kwargs)

    client.fault("transact_write_items", change_first)
    mine = memory.with_text("I live in Lisbon.", at=T0 + timedelta(2))

    store.replace(mine, None, HistoryEntry.of(Event.UPDATE, mine, memory.text, mine.text))

    assert store.get(memory.id) == mine
    assert store.find_by_hash(mine.scope, mine.hash) == mine
    assert len(client.named("transact_write_items")) >= 2


# ---- entity aggregates ------------------------------------------------------------------------------


def test_given_memories_added_out_of_order_when_counted_then_the_oldest_and_latest_are_kept(store: DynamoMemoryStore):
    newer = record("newer", at=T0 + timedelta(days=2))
    older = record("older", at=T0)
    add(store, newer)
    add(store, older)

    assert entities(store) == [("user", "alice", 2, T0, T0 + timedelta(days=2))]


def test_given_drifted_aggregates_when_rebuilt_then_they_match_the_memories_exactly(
    store: DynamoMemoryStore, client: Recording
):
    older, newer = record("older", at=T0), record("newer", user="bob", agent="bot", at=T0 + timedelta(days=1))
    add(store, older, newer)
    ghost = {**items.entity_key(EntityType.RUN, "r-9"), **items.entity_identity(EntityType.RUN, "r-9")}
    client.put_item(TableName=TABLE, Item={**ghost, "total": {"N": "7"}, "created_min": {"S": "2020-01-01"}})
    client.update_item(
        TableName=TABLE,
        Key=items.entity_key(EntityType.USER, "alice"),
        UpdateExpression="SET #n = :n",
        ExpressionAttributeNames={"#n": "total"},
        ExpressionAttributeValues={":n": {"N": "41"}},
    )

    assert store.rebuild_entity_counts() == 3

    assert entities(store) == [
        ("agent", "bot", 1, newer.created_at, newer.updated_at),
        ("user", "alice", 1, T0, T0),
        ("user", "bob", 1, newer.created_at, newer.updated_at),
    ]


# ---- retries -----------------------------------------------------------------------------------------


def _unprocessed_writes(method: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    return {"UnprocessedItems": kwargs["RequestItems"]}  # throttled: nothing written


def _unprocessed_reads(method: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    return {"Responses": {TABLE: []}, "UnprocessedKeys": kwargs["RequestItems"]}


def test_given_unprocessed_items_when_writing_and_reading_in_batches_then_they_are_sent_again(
    store: DynamoMemoryStore, client: Recording
):
    memories = [record(f"fact {i}") for i in range(30)]
    add(store, *memories)
    client.fault("batch_get_item", _unprocessed_reads, _unprocessed_reads)

    assert set(store.get_many([m.id for m in memories])) == {m.id for m in memories}

    client.fault("batch_write_item", _unprocessed_writes)
    store.clear()

    assert store.count(parse(None)) == 0 and store.count_by_entity() == []
    writes = client.named("batch_write_item")
    # 30 memories, 30 history entries, 30 claims and 1 entity: 91 deletes in 4 batches; the throttled first
    # batch went twice.
    assert [len(w["RequestItems"][TABLE]) for w in writes] == [25, 25, 25, 25, 16]
    assert writes[0] == writes[1]


def test_given_items_that_stay_unprocessed_when_writing_then_it_gives_up_with_an_error(
    store: DynamoMemoryStore, client: Recording
):
    add(store, record("fact"))
    client.fault("batch_write_item", *([_unprocessed_writes] * 8))

    with pytest.raises(UnprocessedError):
        store.clear()


def test_given_a_transaction_conflict_when_inserting_then_it_is_retried_with_a_new_token(
    store: DynamoMemoryStore, client: Recording
):
    conflict = ClientError(
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"},
            "CancellationReasons": [{"Code": "TransactionConflict"}, {"Code": "None"}],
        },
        "TransactWriteItems",
    )
    client.fault("transact_write_items", conflict)
    memory = record("I like tea.")

    add(store, memory)

    assert store.get(memory.id) == memory
    tokens = [call["ClientRequestToken"] for call in client.named("transact_write_items")]
    assert len(tokens) == 2 and tokens[0] != tokens[1]


def test_given_many_memories_when_inserted_then_transactions_stay_within_100_actions(
    store: DynamoMemoryStore, client: Recording
):
    memories = [record(f"fact {i}") for i in range(40)]

    add(store, *memories)

    sizes = [len(call["TransactItems"]) for call in client.named("transact_write_items")]
    assert sizes == [99, 21]  # 33 memories x (memory, claim, history), then 7 more
    assert store.count(parse(None)) == 40


def test_given_memories_that_each_keep_a_long_conversation_when_inserted_then_transactions_stay_within_4_mb(
    store: DynamoMemoryStore, client: Recording
):
    """moto does not enforce TransactWriteItems' 4 MB; DynamoDB does. An LLM add keeps the whole conversation as
    each new memory's sources; the store packs by bytes as well as by actions, whatever limit the API sets."""
    conversation = (SourceMessage("user", "x" * 130_000, 0),)
    memories = [replace(record(f"fact {i}"), sources=conversation) for i in range(40)]

    add(store, *memories)

    sizes = transaction_bytes(client)
    assert len(sizes) > 1 and max(sizes) <= 4_000_000
    assert store.count(parse(None)) == 40


def test_given_long_memories_when_removed_with_their_history_then_transactions_stay_within_4_mb(
    store: DynamoMemoryStore, client: Recording
):
    memories = [record(f"{i} " + "x" * 95_000) for i in range(60)]
    add(store, *memories)
    client.calls.clear()
    gone = [HistoryEntry.of(Event.DELETE, m, m.text, None) for m in memories]
    late = [HistoryEntry.of(Event.DELETE, m, m.text, None) for m in memories]  # entries of memories removed already

    store.remove([m.id for m in memories], gone)
    store.remove([], late)

    sizes = transaction_bytes(client)
    assert max(sizes) <= 4_000_000
    assert store.count(parse(None)) == 0 and len(store.history(memories[0].id)) == 3
    # a delete erases: the entries (the ADD and both DELETEs) keep no text, however long it was
    assert all(h.old_memory is None and h.new_memory is None for h in store.history(memories[0].id))


def test_given_an_update_that_would_outgrow_an_item_when_replacing_then_413_and_the_memory_is_unchanged(
    store: DynamoMemoryStore,
):
    """DynamoDB refuses an update past 400 KB as a ValidationException (a 500 if it reached the caller)."""
    conversation = (SourceMessage("user", "x" * 200_000, 0),)
    memory = replace(record("fact"), sources=conversation, metadata={"a": "y" * 100_000})
    add(store, memory)
    grown = memory.changed(metadata={**memory.metadata, "b": "z" * 100_000})

    with pytest.raises(PayloadTooLargeError):
        store.replace(grown, None, HistoryEntry.of(Event.UPDATE, grown, memory.text, memory.text))

    assert store.get(memory.id) == memory and len(store.history(memory.id)) == 1


def test_given_a_duplicate_in_a_later_transaction_when_inserting_then_earlier_parts_stay_and_are_counted(
    store: DynamoMemoryStore,
):
    known = record("I like tea.")
    add(store, known)
    batch = [record(f"fact {i}") for i in range(35)] + [record("I like tea.")]

    with pytest.raises(DuplicateMemoryError):
        add(store, *batch)

    assert store.count(parse(None)) == 1 + 33  # the first transaction (33 memories) went through
    assert [(e[1], e[2]) for e in entities(store)] == [("alice", 34)]


def test_given_many_memories_with_history_when_removed_then_transactions_stay_within_100_actions(
    store: DynamoMemoryStore, client: Recording
):
    memories = [record(f"fact {i}") for i in range(40)]
    add(store, *memories)
    client.calls.clear()
    history = [HistoryEntry.of(e, m, m.text, None) for m in memories for e in (Event.UPDATE, Event.DELETE)]

    store.remove([m.id for m in memories], history)

    sizes = [len(call["TransactItems"]) for call in client.named("transact_write_items")]
    assert sizes == [100, 60]  # 25 memories x (delete, release the claim, two history entries), then 15
    assert store.count(parse(None)) == 0 and store.count_by_entity() == []
    assert [h.event for h in store.history(memories[0].id)] == [Event.ADD, Event.UPDATE, Event.DELETE]


# ---- reading -----------------------------------------------------------------------------------------


def _queries(client: Recording) -> list[dict[str, Any]]:
    return client.named("query")


def test_given_a_filter_when_finding_then_the_narrowest_index_it_pins_is_queried(
    store: DynamoMemoryStore, client: Recording
):
    add(store, record("a", run="r1", agent="bot"), record("b", user="bob", agent="bot"))
    cases: list[tuple[dict[str, Any] | None, list[str]]] = [
        ({"user_id": "alice"}, ["by_user"]),
        ({"user_id": "alice", "run_id": "r1"}, ["by_run"]),
        ({"user_id": ["alice", "bob"], "agent_id": "bot"}, ["by_agent"]),
        ({"OR": [{"agent_id": "bot"}, {"agent_id": "x"}]}, ["by_agent", "by_agent"]),
        (None, ["by_time"] * 8),
        ({"metadata.topic": "x"}, ["by_time"] * 8),
        ({"memory_ids": ["m1"]}, []),
    ]
    for raw, indexes in cases:
        client.calls.clear()
        store.find(parse(raw))
        assert [q["IndexName"] for q in _queries(client)] == indexes, raw
    client.calls.clear()
    assert store.find(parse({"user_id": "alice", "NOT": {"user_id": "alice"}})) == []


def test_given_a_limit_when_finding_then_the_first_page_asks_only_for_that_many(
    store: DynamoMemoryStore, client: Recording
):
    add(store, *[record(f"fact {i}", at=T0 + timedelta(minutes=i)) for i in range(6)])
    client.calls.clear()

    found = store.find(parse({"user_id": "alice"}), limit=2, offset=1)

    assert [m.text for m in found] == ["fact 4", "fact 3"]
    assert [q.get("Limit") for q in _queries(client)] == [3]


def test_given_small_pages_when_reading_then_every_read_follows_the_pages(client: Recording):
    store = DynamoMemoryStore(client, TABLE, page_size=2)
    memories = [record(f"fact {i}", at=T0 + timedelta(minutes=i)) for i in range(7)]
    add(store, *memories)
    memory = memories[0]
    for day in range(1, 5):
        changed = memory.with_text(f"fact 0, version {day}", at=T0 + timedelta(days=day))
        store.replace(changed, None, HistoryEntry.of(Event.UPDATE, changed, memory.text, changed.text))
        memory = changed
    client.calls.clear()

    assert [m.text for m in store.find(parse({"user_id": "alice"}))][:2] == ["fact 6", "fact 5"]
    assert store.count(parse(None)) == 7
    assert len(store.history(memory.id)) == 5
    assert sum(len(batch) for batch, _ in store.scan(batch_size=3)) == 7
    paged = [c for c in client.calls if "ExclusiveStartKey" in c[1]]
    assert {name for name, _ in paged} == {"query", "scan"}
