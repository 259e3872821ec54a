"""The outbox of a DynamoDB table (mnemo.ports.change_outbox): the webhook events a store writes in the same
TransactWriteItems as the changes they describe, kept until they are published.

Every event of a table sits in ONE fixed partition (the memories table's `OUTBOX`, the accounts table's
`T#OUTBOX`), sorted by the order it was written, so that "every pending event of the deployment" is one strongly
consistent Query: whoever drains the outbox (the process that wrote, at once; the scheduled sweep, for what a
process killed between its commit and its publish left) reads them oldest first.

- `pk`: the table's outbox partition; `sk`: `<write order, 20 digits>#<event id>`;
- id, type, namespace (the project), occurred_at, and payload (JSON text; over 16 KB zlib-compressed, `payload_z`).

The write order (`WriteOrder`: nanoseconds since the epoch, strictly increasing in a process) is the event's
`position`. One partition takes about 1,000 writes a second, each event costing two (its put, its delete once
published): some 500 webhook events a second for the whole deployment, far above what the adds it follows make.

`published` deletes by key, and a key holds the write order the caller does not know: the keys of the events
`pending` returned are remembered (a bounded map), and an id not among them is looked for in the partition (one
keys-only Query: the partition holds only what is not yet published).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mnemo.adapters.dynamodb.attributes import Item, placeholders, text
from mnemo.adapters.dynamodb.codec import WriteOrder, json_attribute, json_value, key, key_of
from mnemo.adapters.dynamodb.items import OUTBOX_PK
from mnemo.adapters.dynamodb.operations import Operations, projection
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.domain.erasure import Erasure, scrubbed

if TYPE_CHECKING:  # imported on the first event read: a table without an outbox never loads the webhook events
    from mnemo.domain.webhooks import OutboundEvent

REMEMBERED_KEYS = 10_000  # keys of events read by `pending`, kept for `published`
SCRUBBED_AT_MOST = 10_000  # unpublished events a delete looks through for its memories' texts


def outbox_sk(position: int, event_id: str) -> str:
    return f"{position:020d}#{event_id}"


class OutboxPartition:
    """The outbox partition `pk` of a table: the transaction action that writes an event into it, and the
    ChangeOutbox that reads it. With `namespace`, `pending` gives only that namespace's events (a namespaced
    memory store is its own project's outbox); without, every event of the partition (the deployment's)."""

    def __init__(self, ops: Operations, pk: str, *, namespace: str | None = None, order: WriteOrder | None = None):
        self._ops = ops
        self.pk = pk
        self._namespace = namespace
        self._order = order or WriteOrder()
        self._keys: dict[str, Item] = {}
        self._lock = threading.Lock()

    # ---- writing ------------------------------------------------------------------------------------------

    def put(self, event: OutboundEvent) -> dict[str, Any]:
        """A transaction's Put of the event, at the next write order (its `position`). The namespace is the
        store's when it has one."""
        position = self._order.next()
        namespace = self._namespace if self._namespace is not None else event.namespace
        stored = replace(event, namespace=namespace, position=position)
        return self._ops.put(outbox_item(self.pk, stored))

    def holds(self, action: dict[str, Any]) -> bool:
        """Whether a transaction action writes into this partition."""
        item = action.get("Put", {}).get("Item", {})
        return "pk" in item and text(item, "pk") == self.pk

    # ---- ChangeOutbox -------------------------------------------------------------------------------------

    def pending(self, limit: int) -> list[OutboundEvent]:
        if limit <= 0:
            return []
        request: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": placeholders(pk=self.pk),
            "ConsistentRead": True,
        }
        if self._namespace is not None:
            request["FilterExpression"] = "#ns = :ns"
            request["ExpressionAttributeNames"] = {"#ns": "namespace"}
            request["ExpressionAttributeValues"] |= placeholders(ns=self._namespace)
        else:
            request["first_page"] = limit
        found: list[Item] = []
        for item in self._ops.items("query", **request):
            found.append(item)
            if len(found) >= limit:
                break
        self._remember(found)
        return [event_of(item) for item in found]

    def published(self, event_ids: Sequence[str]) -> None:
        wanted = list(dict.fromkeys(event_ids))
        if not wanted:
            return
        with self._lock:
            keys = {i: self._keys.pop(i) for i in wanted if i in self._keys}
        unknown = {i for i in wanted if i not in keys}
        if unknown:
            for item in self._ops.items(
                "query",
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues=placeholders(pk=self.pk),
                ConsistentRead=True,
                **projection(["pk", "sk", "id"]),
            ):
                if text(item, "id") in unknown:
                    keys[text(item, "id")] = key_of(item)
        self._ops.delete_many(keys.values())

    def scrub(self, erasure: Erasure) -> int:
        """The unpublished events (of this namespace) that name an erased memory, rewritten without its texts (a
        Put of the same key on condition that the event is still there: one published meanwhile stays gone). How
        many were rewritten. The partition holds only what is not yet published: a short Query."""
        rewritten = 0
        for event in self.pending(SCRUBBED_AT_MOST):
            if not erasure.names_any(event.payload):
                continue
            clean = replace(event, payload=scrubbed(dict(event.payload), erasure))
            put = self._ops.conditionally(
                "put_item", Item=outbox_item(self.pk, clean), ConditionExpression="attribute_exists(pk)"
            )
            rewritten += put is not None
        return rewritten

    def _remember(self, items: list[Item]) -> None:
        with self._lock:
            for item in items:
                self._keys[text(item, "id")] = key_of(item)
            while len(self._keys) > REMEMBERED_KEYS:
                self._keys.pop(next(iter(self._keys)))


def outbox_item(pk: str, event: OutboundEvent) -> Item:
    return {
        **key(pk, outbox_sk(event.position, event.id)),
        **as_attributes(event, omit=("payload", "position")),
        **json_attribute("payload", dict(event.payload)),
    }


def event_of(item: Item) -> OutboundEvent:
    from mnemo.domain.webhooks import OutboundEvent

    position = int(text(item, "sk").split("#", 1)[0])
    return from_item(OutboundEvent, item, payload=json_value(item, "payload"), position=position)


def notify(on_outbox: Callable[[], None] | None, log: Any, what: str) -> None:
    """Call the wake-up of a store after a write that put events in its outbox: its errors are logged, never
    raised into a write already committed."""
    if on_outbox is None:
        return
    try:
        on_outbox()
    except Exception:
        log.exception("the outbox wake-up of %s failed", what)


def memories_outbox(client: Any, table_name: str, *, page_size: int | None = None) -> OutboxPartition:
    """The memories table's outbox: every namespace's pending events (mnemo.adapters.aws.namespaces writes it)."""
    return OutboxPartition(Operations(client, table_name, page_size=page_size), OUTBOX_PK)
