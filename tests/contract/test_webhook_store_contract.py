"""The WebhookStore contract: every adapter of the port must pass this one suite.

To add an adapter, write a context manager that builds it on a fresh, empty backend and register it
in ADAPTERS; every test below then runs against it too. What it holds: webhooks kept whole and per project; each
webhook's deliveries numbered 1, 2, ... in the order they are enqueued, one per event whoever enqueues it and
however often; a webhook's deliveries sent one at a time in sequence order (`due` gives only the head of each
active webhook's queue); deletes take the deliveries along.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from moto import mock_aws

from mnemo.adapters.dynamodb.webhook_items import DUE_SHARDS
from mnemo.adapters.dynamodb.webhook_store import DynamoWebhookStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.webhook_store import SqliteWebhookStore
from mnemo.domain.erasure import Erasure
from mnemo.domain.memory import new_id
from mnemo.domain.webhooks import (
    Attempt,
    Delivery,
    DeliveryState,
    OutboundEvent,
    Webhook,
    delivery_id,
    new_secret,
)
from mnemo.ports.webhook_store import WebhookStore
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_accounts_table
from tests.support.store_backends import Backend, adapter_fixture, on_accounts_table, on_sqlite

T0 = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)


ADAPTERS: dict[str, Backend[WebhookStore]] = {
    "sqlite": on_sqlite(SqliteWebhookStore),
    "dynamodb": on_accounts_table(DynamoWebhookStore, one_call_at_a_time=True),
}
store = adapter_fixture(ADAPTERS)


def webhook(project_id: str = "proj_a", name: str = "hook", at: datetime = T0, **fields: object) -> Webhook:
    made = Webhook(
        id=f"wh_{new_id()}",
        project_id=project_id,
        name=name,
        url="https://example.com/hooks",
        event_types=("memory_add", "memory_delete"),
        owner="alice@example.com",
        secret=new_secret(),
        created_at=at,
        updated_at=at,
    )
    return made.changed(**fields) if fields else made


def added(store: WebhookStore, **fields: object) -> Webhook:
    made = webhook(**fields)  # type: ignore[arg-type]
    store.add_webhook(made)
    return made


def event(n: int = 0, namespace: str = "proj_a") -> OutboundEvent:
    payload = {
        "event_details": {"id": f"mem-{n}", "data": {"memory": f"fact {n} ✓"}, "event": "ADD"},
        "user_id": "alice",
        "agent_id": None,
        "app_id": None,
        "run_id": None,
    }
    return OutboundEvent(new_id(), "memory_add", namespace, payload, T0 + timedelta(seconds=n), position=n + 1)


def delivered(delivery: Delivery, at: datetime, answer: str | None = None) -> Delivery:
    return delivery.tried(Attempt(at, 200, None, 12.5, answer), DeliveryState.DELIVERED, None)


# ---- webhooks -------------------------------------------------------------------------------------------------


def test_a_webhook_is_kept_whole_and_listed_oldest_first_within_its_project(store: WebhookStore) -> None:
    second = added(store, name="second", at=T0 + timedelta(minutes=1))
    first = webhook(name="first").rotated(T0)
    first = first.changed(is_active=False, deactivated_reason="410 Gone", event_types=("memory_update",))
    store.add_webhook(first)
    other = added(store, project_id="proj_b")
    assert store.get_webhook(first.id) == first
    assert store.get_webhook(second.id) == second
    assert store.get_webhook("wh_unknown") is None
    assert store.webhooks_of_project("proj_a") == [first, second]
    assert store.webhooks_of_project("proj_b") == [other]
    assert store.webhooks_of_project("proj_c") == []


def test_webhooks_made_in_the_same_instant_are_listed_in_the_order_they_were_added(store: WebhookStore) -> None:
    made = [added(store, name=f"h{i}") for i in range(5)]
    assert [w.id for w in store.webhooks_of_project("proj_a")] == [w.id for w in made]


def test_saving_a_webhook_replaces_it(store: WebhookStore) -> None:
    hook = added(store)
    changed = hook.rotated(T0 + timedelta(hours=1)).changed(
        name="renamed", url="https://example.org/new", event_types=("memory_categorize",), is_active=False
    )
    store.save_webhook(changed)
    assert store.get_webhook(hook.id) == changed
    reactivated = changed.changed(is_active=True, previous_secret=None, previous_secret_expires_at=None)
    store.save_webhook(reactivated)
    assert store.get_webhook(hook.id) == reactivated
    assert store.webhooks_of_project("proj_a") == [reactivated]


def test_deleting_a_webhook_deletes_its_deliveries_and_no_other(store: WebhookStore) -> None:
    gone, kept = added(store), added(store)
    events = [event(i) for i in range(3)]
    gone_deliveries = store.enqueue(gone, events, T0)
    kept_deliveries = store.enqueue(kept, events, T0)
    assert store.delete_webhook(gone.id)
    assert not store.delete_webhook(gone.id)
    assert store.get_webhook(gone.id) is None
    assert store.count_deliveries(gone.id, None) == 0
    assert store.get_delivery(gone.id, gone_deliveries[0].id) is None
    assert store.deliveries_of(kept.id, None, 10, 0) == kept_deliveries[::-1]
    assert [d.webhook_id for d in store.due(T0, 10)] == [kept.id]


def test_deleting_a_projects_webhooks_deletes_them_all_with_their_deliveries(store: WebhookStore) -> None:
    first, second, other = added(store), added(store), added(store, project_id="proj_b")
    for hook in (first, second, other):
        store.enqueue(hook, [event(1), event(2)], T0)
    store.delete_project_webhooks("proj_a")
    assert store.webhooks_of_project("proj_a") == []
    assert store.get_webhook(first.id) is None and store.get_webhook(second.id) is None
    assert store.count_deliveries(first.id, None) == 0 and store.count_deliveries(second.id, None) == 0
    assert store.webhooks_of_project("proj_b") == [other]
    assert store.count_deliveries(other.id, None) == 2
    assert [d.webhook_id for d in store.due(T0, 10)] == [other.id]
    store.delete_project_webhooks("proj_none")  # nothing to delete: no error


# ---- enqueueing -----------------------------------------------------------------------------------------------


def test_enqueued_deliveries_are_numbered_in_order_pending_and_due_at_once(store: WebhookStore) -> None:
    hook = added(store)
    events = [event(i) for i in range(3)]
    made = store.enqueue(hook, events, T0)
    assert [d.sequence for d in made] == [1, 2, 3]
    assert [d.event for d in made] == events
    for delivery, sent in zip(made, events, strict=True):
        assert delivery.id == delivery_id(hook.id, sent.id)
        assert (delivery.webhook_id, delivery.project_id) == (hook.id, hook.project_id)
        assert delivery.state is DeliveryState.PENDING and delivery.attempts == ()
        assert delivery.created_at == T0 and delivery.next_attempt_at == T0 and delivery.finished_at is None
        assert store.get_delivery(hook.id, delivery.id) == delivery
    later = store.enqueue(hook, [event(3), event(4)], T0 + timedelta(seconds=1))
    assert [d.sequence for d in later] == [4, 5]


def test_a_delivery_made_due_later_is_not_due_before_then(store: WebhookStore) -> None:
    hook = added(store)
    later = T0 + timedelta(minutes=15)
    (held,) = store.enqueue(hook, [event(1)], T0, due=later)
    assert held.created_at == T0 and held.next_attempt_at == later
    assert store.get_delivery(hook.id, held.id) == held
    assert store.due(later - timedelta(seconds=1), 10) == [] and store.next_due_at() == later
    assert store.due(later, 10) == [held]


def test_each_webhook_has_its_own_sequence(store: WebhookStore) -> None:
    one, two = added(store), added(store)
    shared = event(0)
    assert [d.sequence for d in store.enqueue(one, [shared, event(1)], T0)] == [1, 2]
    assert [d.sequence for d in store.enqueue(two, [shared], T0)] == [1]
    assert delivery_id(one.id, shared.id) != delivery_id(two.id, shared.id)


def test_an_event_is_delivered_to_a_webhook_once_however_often_it_is_enqueued(store: WebhookStore) -> None:
    hook = added(store)
    first, second = event(1), event(2)
    assert [d.sequence for d in store.enqueue(hook, [first], T0)] == [1]
    again = store.enqueue(hook, [first, second, second], T0)  # read twice from an outbox, and twice in one batch
    assert [(d.event.id, d.sequence) for d in again] == [(second.id, 2)]
    assert store.enqueue(hook, [first, second], T0) == []
    head = store.due(T0, 10)[0]
    store.save_delivery(delivered(head, T0))
    assert store.enqueue(hook, [first], T0) == []  # already delivered: not made again
    assert store.count_deliveries(hook.id, None) == 2


def test_nothing_is_enqueued_for_a_deleted_webhook(store: WebhookStore) -> None:
    hook = added(store)
    store.delete_webhook(hook.id)
    assert store.enqueue(hook, [event(1)], T0) == []
    assert store.count_deliveries(hook.id, None) == 0
    assert store.due(T0, 10) == [] and store.next_due_at() is None


def test_concurrent_enqueues_number_every_delivery_once_without_gaps(store: WebhookStore) -> None:
    hook = added(store)
    batches = [[event(100 * t + i) for i in range(10)] for t in range(8)]
    made: list[Delivery] = []
    lock = threading.Lock()

    def enqueue(batch: list[OutboundEvent]) -> None:
        result = store.enqueue(hook, batch, T0)
        with lock:
            made.extend(result)

    threads = [threading.Thread(target=enqueue, args=(batch,)) for batch in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(d.sequence for d in made) == list(range(1, 81))
    by_event = {d.event.id: d.sequence for d in made}
    for batch in batches:  # each batch keeps its order
        sequences = [by_event[e.id] for e in batch]
        assert sequences == sorted(sequences)


# ---- what is due ----------------------------------------------------------------------------------------------


def test_only_the_head_of_a_webhooks_queue_is_due_and_the_next_follows_once_it_is_final(store: WebhookStore) -> None:
    hook = added(store)
    first, second, third = store.enqueue(hook, [event(1), event(2), event(3)], T0)
    assert store.due(T0, 10) == [first]
    assert store.due(T0 - timedelta(seconds=1), 10) == []  # not yet
    store.save_delivery(delivered(first, T0))
    assert store.due(T0, 10) == [second]
    failed = second.tried(Attempt(T0, 500, "HTTP 500", 3.0), DeliveryState.PENDING, T0 + timedelta(minutes=5))
    store.save_delivery(failed)
    assert store.due(T0 + timedelta(minutes=4), 10) == []  # the third waits behind the second's retry
    assert store.next_due_at() == T0 + timedelta(minutes=5)
    assert store.due(T0 + timedelta(minutes=5), 10) == [failed]
    dead = failed.tried(Attempt(T0 + timedelta(minutes=5), None, "timeout", 10_000.0), DeliveryState.DEAD, None)
    store.save_delivery(dead)
    assert store.due(T0 + timedelta(minutes=5), 10) == [third]


def test_due_gives_one_delivery_per_active_webhook_longest_waiting_first_within_the_limit(
    store: WebhookStore,
) -> None:
    early, late, inactive = added(store), added(store, project_id="proj_b"), added(store, is_active=False)
    store.enqueue(late, [event(1), event(2)], T0 + timedelta(seconds=30))
    store.enqueue(early, [event(3), event(4)], T0)
    store.enqueue(inactive, [event(5)], T0 - timedelta(hours=1))
    at = T0 + timedelta(minutes=1)
    assert [(d.webhook_id, d.sequence) for d in store.due(at, 10)] == [(early.id, 1), (late.id, 1)]
    assert [d.webhook_id for d in store.due(at, 1)] == [early.id]
    assert store.due(at, 0) == []
    assert store.next_due_at() == T0
    store.save_webhook(inactive.changed(is_active=True))
    assert [d.webhook_id for d in store.due(at, 10)] == [inactive.id, early.id, late.id]
    assert store.next_due_at() == T0 - timedelta(hours=1)


def test_next_due_at_counts_only_the_heads_of_active_webhooks(store: WebhookStore) -> None:
    assert store.next_due_at() is None
    hook = added(store)
    first, _second = store.enqueue(hook, [event(1), event(2)], T0)
    assert store.next_due_at() == T0
    retry_at = T0 + timedelta(minutes=10)
    store.save_delivery(first.tried(Attempt(T0, 503, "HTTP 503", 1.0), DeliveryState.PENDING, retry_at))
    assert store.next_due_at() == retry_at  # not the second's T0: it waits for the first
    store.save_webhook(hook.changed(is_active=False))
    assert store.next_due_at() is None
    assert store.due(retry_at, 10) == []


def test_a_redelivered_delivery_is_due_again_with_its_attempts(store: WebhookStore) -> None:
    hook = added(store)
    (only,) = store.enqueue(hook, [event(1)], T0)
    dead = only.tried(Attempt(T0, 500, "HTTP 500", 2.0), DeliveryState.DEAD, None)
    store.save_delivery(dead)
    assert store.due(T0 + timedelta(days=1), 10) == [] and store.next_due_at() is None
    again = dead.redelivered(T0 + timedelta(days=1))
    store.save_delivery(again)
    assert store.due(T0 + timedelta(days=1), 10) == [again]
    assert again.attempts == dead.attempts and again.finished_at is None


def test_cancelling_a_webhooks_pending_deliveries_leaves_the_finished_ones(store: WebhookStore) -> None:
    hook, other = added(store), added(store)
    first, _, _ = store.enqueue(hook, [event(1), event(2), event(3)], T0)
    store.enqueue(other, [event(1)], T0)
    store.save_delivery(delivered(first, T0))
    cancelled_at = T0 + timedelta(minutes=1)
    assert store.cancel_pending(hook.id, cancelled_at) == 2
    assert store.cancel_pending(hook.id, cancelled_at) == 0
    assert store.count_deliveries(hook.id, DeliveryState.CANCELLED) == 2
    assert store.count_deliveries(hook.id, DeliveryState.DELIVERED) == 1
    for delivery in store.deliveries_of(hook.id, DeliveryState.CANCELLED, 10, 0):
        assert delivery.finished_at == cancelled_at and delivery.next_attempt_at is None and delivery.is_final
    assert [d.webhook_id for d in store.due(cancelled_at, 10)] == [other.id]


# ---- the delivery log -----------------------------------------------------------------------------------------


def test_a_saved_delivery_keeps_its_attempts_and_state(store: WebhookStore) -> None:
    hook = added(store)
    (made,) = store.enqueue(hook, [event(1)], T0)
    attempts = [
        Attempt(T0, None, "connection refused", 0.25),
        Attempt(T0 + timedelta(seconds=5), 502, 'HTTP 502: upstream "down"', 1234.5, 'upstream "down"'),
        Attempt(T0 + timedelta(minutes=5), 204, None, 8.0, "accepted ✓"),
    ]
    current = made
    for attempt in attempts[:-1]:
        current = current.tried(attempt, DeliveryState.PENDING, attempt.at + timedelta(seconds=5))
        store.save_delivery(current)
        assert store.get_delivery(hook.id, made.id) == current
    current = current.tried(attempts[-1], DeliveryState.DELIVERED, None)
    store.save_delivery(current)
    stored = store.get_delivery(hook.id, made.id)
    assert stored == current
    assert stored is not None and stored.attempts == tuple(attempts) and stored.finished_at == attempts[-1].at
    assert stored.body() == made.body()
    assert store.get_delivery("wh_other", made.id) is None  # only under its own webhook
    assert store.get_delivery(hook.id, "msg_unknown") is None


def test_deliveries_are_listed_newest_first_by_state_and_counted(store: WebhookStore) -> None:
    hook = added(store)
    made = store.enqueue(hook, [event(i) for i in range(5)], T0)
    for delivery in made[:2]:
        store.save_delivery(delivered(delivery, T0))
    assert [d.sequence for d in store.deliveries_of(hook.id, None, 10, 0)] == [5, 4, 3, 2, 1]
    assert [d.sequence for d in store.deliveries_of(hook.id, None, 2, 1)] == [4, 3]
    assert [d.sequence for d in store.deliveries_of(hook.id, DeliveryState.DELIVERED, 10, 0)] == [2, 1]
    assert [d.sequence for d in store.deliveries_of(hook.id, DeliveryState.PENDING, 10, 0)] == [5, 4, 3]
    assert store.deliveries_of(hook.id, DeliveryState.DEAD, 10, 0) == []
    assert store.deliveries_of(hook.id, None, 10, 5) == []
    assert store.count_deliveries(hook.id, None) == 5
    assert store.count_deliveries(hook.id, DeliveryState.PENDING) == 3
    assert store.count_deliveries("wh_other", None) == 0


def test_saving_a_delivery_of_a_deleted_webhook_brings_nothing_back(store: WebhookStore) -> None:
    hook = added(store)
    (made,) = store.enqueue(hook, [event(1)], T0)
    store.delete_webhook(hook.id)
    store.save_delivery(delivered(made, T0))  # a send that finished after the delete
    assert store.get_delivery(hook.id, made.id) is None
    assert store.count_deliveries(hook.id, None) == 0


def test_on_sqlite_due_and_next_due_at_read_each_webhooks_head_by_index(tmp_path: Path) -> None:
    """What is due costs an index lookup per webhook, however long its delivery log: no query of due() or
    next_due_at() scans the deliveries (SQLite's own plan of the statements they run says so)."""
    database = Database(tmp_path / "plan.sqlite3")
    try:
        store = SqliteWebhookStore(database)
        hooks = [added(store, name=f"h{i}") for i in range(3)]
        for number, hook in enumerate(hooks):
            made = store.enqueue(hook, [event(100 * number + i) for i in range(100)], T0)
            for delivery in made[:90]:
                store.save_delivery(replace(delivery, state=DeliveryState.DELIVERED, next_attempt_at=None))
        statements: list[str] = []
        connection = database.read()
        connection.set_trace_callback(statements.append)
        try:
            due = store.due(T0, 100)
            store.next_due_at()
        finally:
            connection.set_trace_callback(None)
        assert sorted(d.sequence for d in due) == [91] * 3
        selects = [sql for sql in statements if sql.lstrip().upper().startswith("SELECT")]
        assert len(selects) == 2
        for sql in selects:
            plan = [row[-1] for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}")]
            # the webhooks (a project has a few) may be scanned, never the deliveries: each is a SEARCH by index
            scans = [step for step in plan if step.startswith("SCAN") and step.split()[1] not in ("w", "webhooks")]
            assert scans == [] and any("USING INDEX webhook_deliveries_queue" in step for step in plan), plan
    finally:
        database.close()


# ---- DynamoDB: what is due costs a few queries, however many deliveries are kept -------------------------------


class Recording:
    """A DynamoDB client that records the operations called and the partitions each Query read."""

    def __init__(self, wrapped: object) -> None:
        self._wrapped = wrapped
        self.calls: list[tuple[str, str | None]] = []

    def __getattr__(self, name: str) -> object:
        method = getattr(self._wrapped, name)

        def call(**kwargs: object) -> object:
            values = kwargs.get("ExpressionAttributeValues")
            partition = values.get(":pk", {}).get("S") if isinstance(values, dict) else None
            self.calls.append((name, partition))
            return method(**kwargs)

        return call


def test_on_dynamodb_due_and_next_due_at_read_only_the_due_heads() -> None:
    with mock_aws():
        client = Recording(moto_aws.client("dynamodb"))
        create_accounts_table(client, "webhooks-accounts")
        store = DynamoWebhookStore(client, "webhooks-accounts")
        hooks = [added(store, name=f"h{i}") for i in range(3)]
        for number, hook in enumerate(hooks):  # each hook's queue: delivered ones, then its head, then more behind
            made = store.enqueue(hook, [event(100 * number + i) for i in range(20)], T0)
            for delivery in made[:15]:
                store.save_delivery(delivered(delivery, T0))
        client.calls.clear()
        due = store.due(T0, 100)
        assert sorted(d.sequence for d in due) == [16] * 3
        assert sorted(client.calls) == sorted(
            [("query", f"T#WHDUE#{n}") for n in range(DUE_SHARDS)] + [("batch_get_item", None)]
        )
        client.calls.clear()
        assert store.next_due_at() == T0
        assert sorted(client.calls) == sorted([("query", f"T#WHDUE#{n}") for n in range(DUE_SHARDS)])


# ---- a delete erases ------------------------------------------------------------------------------------------


def memory_event(memory_id: str, text: str, kind: str = "memory_add") -> OutboundEvent:
    payload = {"event_details": {"id": memory_id, "data": {"memory": text}, "event": "ADD"}, "user_id": "alice"}
    return OutboundEvent(new_id(), kind, "proj_a", payload, T0, position=1)


def test_erasing_scrubs_the_deliveries_naming_a_memory_in_every_state_and_no_other(store: WebhookStore) -> None:
    hook, elsewhere = added(store), added(store, project_id="proj_b")
    doomed, kept = new_id(), new_id()
    first, second, third = store.enqueue(
        hook,
        [
            memory_event(doomed, "I moved to Lisbon."),
            memory_event(kept, "I like tea."),
            memory_event(doomed, "I moved to Lisbon in May.", "memory_update"),
        ],
        T0,
    )
    (other,) = store.enqueue(elsewhere, [memory_event(doomed, "I moved to Lisbon.")], T0)  # another project's
    store.save_delivery(delivered(first, T0 + timedelta(seconds=1), answer="got: I moved to Lisbon."))
    echoed = Attempt(
        T0, 500, "HTTP 500 Internal Server Error: I moved to Lisbon in May.", 3.0, "I moved to Lisbon in May."
    )
    store.save_delivery(third.tried(echoed, DeliveryState.PENDING, T0 + timedelta(seconds=5)))
    store.save_delivery(delivered(second, T0 + timedelta(seconds=1), answer="got: I like tea."))
    erasure = Erasure(frozenset({doomed}), ("I moved to Lisbon in May.", "I moved to Lisbon."))

    assert store.erase_from_deliveries("proj_a", erasure) == 2

    read = {d.id: d for d in store.deliveries_of(hook.id, None, 10, 0)}
    assert read[first.id].event.payload["event_details"]["data"]["memory"] == ""
    assert read[first.id].state is DeliveryState.DELIVERED and len(read[first.id].attempts) == 1
    assert read[third.id].event.payload["event_details"] == {"id": doomed, "data": {"memory": ""}, "event": "ADD"}
    # what the receivers answered may echo the text: it goes too, the status stays
    assert [(a.status_code, a.error, a.response) for a in read[first.id].attempts] == [(200, None, None)]
    assert [(a.status_code, a.error, a.response) for a in read[third.id].attempts] == [
        (500, "HTTP 500 Internal Server Error", None)
    ]
    assert read[second.id].event == second.event
    assert read[second.id].attempts[0].response == "got: I like tea."  # another memory's delivery keeps its answer
    assert store.get_delivery(elsewhere.id, other.id) == other
    assert store.erase_from_deliveries("proj_a", erasure) == 0


def test_a_delivery_saved_after_an_erasure_keeps_the_scrubbed_event(store: WebhookStore) -> None:
    hook = added(store)
    doomed = new_id()
    (delivery,) = store.enqueue(hook, [memory_event(doomed, "I moved to Lisbon.")], T0)
    store.erase_from_deliveries("proj_a", Erasure(frozenset({doomed}), ("I moved to Lisbon.",)))

    # the sender's copy still has the text, and the receiver echoed it
    store.save_delivery(delivered(delivery, T0 + timedelta(seconds=1), answer="got: I moved to Lisbon."))

    saved = store.get_delivery(hook.id, delivery.id)
    assert saved is not None and saved.state is DeliveryState.DELIVERED
    assert saved.event.payload["event_details"]["data"]["memory"] == ""
    assert [(a.status_code, a.response) for a in saved.attempts] == [(200, None)]


def test_an_event_read_before_an_erasure_and_enqueued_after_it_is_kept_without_its_text(
    store: WebhookStore,
) -> None:
    """The relay (or the topic) held the event while a delete erased its memory: the delivery made after keeps the
    memory's id, not its text; another memory's event, and another project's, keep theirs."""
    hook, elsewhere = added(store), added(store, project_id="proj_b")
    doomed, kept = new_id(), new_id()
    held = [memory_event(doomed, "I moved to Lisbon."), memory_event(kept, "I like tea.")]
    store.erase_from_deliveries("proj_a", Erasure(frozenset({doomed}), ("I moved to Lisbon.",)))

    made = store.enqueue(hook, held, T0)
    (other,) = store.enqueue(elsewhere, [memory_event(doomed, "I moved to Lisbon.")], T0)

    details = [d.event.payload["event_details"] for d in made]
    assert details == [
        {"id": doomed, "data": {"memory": ""}, "event": "ADD"},
        {"id": kept, "data": {"memory": "I like tea."}, "event": "ADD"},
    ]
    read = {d.id: d.event.payload["event_details"] for d in store.deliveries_of(hook.id, None, 10, 0)}
    assert read == {d.id: e for d, e in zip(made, details, strict=True)}
    stored_other = store.get_delivery(elsewhere.id, other.id)
    assert stored_other is not None and stored_other.event.payload["event_details"]["data"]["memory"] != ""


def test_a_deleted_projects_erased_ids_are_forgotten_with_it(store: WebhookStore) -> None:
    doomed = new_id()
    added(store)
    store.erase_from_deliveries("proj_a", Erasure(frozenset({doomed}), ("I moved to Lisbon.",)))

    store.delete_project_webhooks("proj_a")

    (delivery,) = store.enqueue(added(store), [memory_event(doomed, "I moved to Lisbon.")], T0)
    assert delivery.event.payload["event_details"]["data"]["memory"] == "I moved to Lisbon."


def test_an_untouched_delivery_keeps_what_the_receiver_answered(store: WebhookStore) -> None:
    hook = added(store)
    (delivery,) = store.enqueue(hook, [memory_event(new_id(), "I like tea.")], T0)

    store.save_delivery(delivered(delivery, T0 + timedelta(seconds=1), answer="thanks"))

    saved = store.get_delivery(hook.id, delivery.id)
    assert saved is not None and [a.response for a in saved.attempts] == ["thanks"]
