"""The deliveries of the webhook store: enqueued with their sequence numbers in the transaction that moves the
webhook's queue, found when due through the due-head items (one Query per shard), saved after an attempt without
undoing a scrub, read, counted and cancelled. See webhook_store.py for what the store promises.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from mnemo.adapters.dynamodb.attributes import Item, attributes, integer, placeholders, text
from mnemo.adapters.dynamodb.codec import json_value, key_of
from mnemo.adapters.dynamodb.operations import MAX_BATCH_GET, MAX_TRANSACTION, item_size
from mnemo.adapters.dynamodb.webhook_items import (
    DUE_SHARDS,
    ERASED_AT,
    Queue,
    deliveries_pk,
    delivery_id_key,
    delivery_item,
    delivery_key,
    delivery_of,
    due_at,
    due_pk,
)
from mnemo.adapters.dynamodb.webhook_queue import PENDING, WebhookQueue
from mnemo.domain.timefmt import from_iso, iso
from mnemo.domain.webhooks import Delivery, DeliveryState, OutboundEvent, Webhook, delivery_id, without_answers

TRANSACTION_BYTES = 3_500_000  # a TransactWriteItems holds 4 MB at most


class WebhookDeliveries(WebhookQueue):
    def enqueue(
        self, webhook: Webhook, events: Sequence[OutboundEvent], at: datetime, *, due: datetime | None = None
    ) -> list[Delivery]:
        wanted: dict[str, OutboundEvent] = {}
        for event in events:
            wanted.setdefault(delivery_id(webhook.id, event.id), event)
        todo = list(wanted.items())
        made: list[Delivery] = []
        while todo:
            part = self._retrying(lambda: self._enqueue_part(webhook, todo, at, due or at))
            if part is None:
                return made  # the webhook is gone
            made.extend(part)
        return made

    def _enqueue_part(
        self, webhook: Webhook, todo: list[tuple[str, OutboundEvent]], at: datetime, due: datetime
    ) -> list[Delivery] | None:
        """One transaction: the next deliveries that fit it, numbered after the queue's last sequence, then taken
        off `todo` (as are the deliveries that exist already). None: the webhook is no longer stored."""
        queue = self._queue(webhook.id)
        if queue is None:
            return None
        candidates = todo[:MAX_BATCH_GET]  # more than one transaction holds: the rest are looked at next time
        keys = [delivery_id_key(webhook.id, made_id) for made_id, _ in candidates]
        existing = {text(i, "sk")[2:] for i in self._ops.batch_get(keys)}
        todo[:] = [(made_id, e) for made_id, e in todo if made_id not in existing]
        part = _fitting(webhook, queue, todo[: len(candidates) - len(existing)], at, due)
        if not part:
            return []
        after = replace(queue, seq=queue.seq + len(part)).moved(None, DeliveryState.PENDING, len(part))
        if queue.head is None:
            after = after.headed(part[0].sequence, due)
        actions = self._queue_writes(queue, after)
        for delivery in part:
            claim = {**delivery_id_key(webhook.id, delivery.id), **attributes(sequence=delivery.sequence)}
            actions.extend([self._ops.put_new(delivery_item(delivery)), self._ops.put_new(claim)])
        self._transact(actions)
        todo[:] = todo[len(part) :]
        return part

    def due(self, at: datetime, limit: int) -> list[Delivery]:
        if limit <= 0:
            return []
        bound = iso(at) + "$"  # `$` sorts right after `#`: every sort key `<due ISO>#...` with due <= at
        shards = [
            itertools.islice(
                self._ops.items(
                    "query",
                    KeyConditionExpression="pk = :pk AND sk < :bound",
                    ExpressionAttributeValues=placeholders(pk=due_pk(n), bound=bound),
                    ConsistentRead=True,
                    first_page=limit,
                ),
                limit,
            )
            for n in range(DUE_SHARDS)
        ]
        heads = list(itertools.islice(heapq.merge(*shards, key=lambda i: text(i, "sk")), limit))
        found = self._ops.batch_get([delivery_key(text(h, "webhook_id"), integer(h, "head")) for h in heads])
        deliveries = [delivery_of(i) for i in found]
        ready = [d for d in deliveries if d.state is DeliveryState.PENDING and due_at(d) <= at]
        return sorted(ready, key=lambda d: (due_at(d), d.created_at, d.sequence))[:limit]

    def next_due_at(self) -> datetime | None:
        firsts = [
            next(
                iter(
                    self._ops.items(
                        "query",
                        KeyConditionExpression="pk = :pk",
                        ExpressionAttributeValues=placeholders(pk=due_pk(n)),
                        ConsistentRead=True,
                        first_page=1,
                    )
                ),
                None,
            )
            for n in range(DUE_SHARDS)
        ]
        dues = [text(f, "sk").split("#", 1)[0] for f in firsts if f is not None]
        return from_iso(min(dues)) if dues else None

    def head(self, webhook_id: str) -> Delivery | None:
        """The head of an active webhook's queue (its PENDING delivery of the lowest sequence), due or not; None
        when it has none, or is inactive or gone. (Beyond the port: the delivery function sends one webhook's
        deliveries, in order, from it.)"""
        queue = self._queue(webhook_id)
        if queue is None or not queue.active or queue.head is None:
            return None
        item = self._ops.get(delivery_key(webhook_id, queue.head))
        return None if item is None else delivery_of(item)

    def save_delivery(self, delivery: Delivery) -> None:
        def attempt() -> None:
            queue = self._queue(delivery.webhook_id)
            stored = self._ops.get(
                delivery_key(delivery.webhook_id, delivery.sequence), ["id", "state", "event", "event_z", ERASED_AT]
            )
            if queue is None or stored is None or text(stored, "id") != delivery.id:
                return  # its webhook was deleted: nothing comes back
            after = self._after_save(queue, DeliveryState(text(stored, "state")), delivery)
            # The event as stored (scrubbed, should a delete have erased a memory it names), never the caller's;
            # once scrubbed, the attempts keep no answers (they may echo what was erased).
            event = OutboundEvent.from_json(json_value(stored, "event"))
            same = event.to_json() == delivery.event.to_json()
            attempts = delivery.attempts if same else without_answers(delivery.attempts)
            kept = replace(delivery, event=event, attempts=attempts)
            put = self._ops.put(
                {**delivery_item(kept), **({ERASED_AT: stored[ERASED_AT]} if ERASED_AT in stored else {})}
            )
            if ERASED_AT in stored:  # a scrub after this read makes it read again
                put["Put"]["ConditionExpression"] = "attribute_exists(pk) AND #erased = :erased"
                put["Put"]["ExpressionAttributeValues"] = {":erased": stored[ERASED_AT]}
            else:
                put["Put"]["ConditionExpression"] = "attribute_exists(pk) AND attribute_not_exists(#erased)"
            put["Put"]["ExpressionAttributeNames"] = {"#erased": ERASED_AT}
            self._transact([put, *self._queue_writes(queue, after)])

        self._retrying(attempt)

    def _after_save(self, queue: Queue, old: DeliveryState, delivery: Delivery) -> Queue:
        """The queue once `delivery` (stored as `old`) is saved: its counts, and its head."""
        after = queue.moved(old, delivery.state)
        sequence = delivery.sequence
        if delivery.state is DeliveryState.PENDING:
            if queue.head is None or sequence <= queue.head:
                after = after.headed(sequence, due_at(delivery))
        elif sequence == queue.head:
            after = after.headed(*self._next_pending(delivery.webhook_id, sequence))
        return after

    def get_delivery(self, webhook_id: str, delivery_id: str) -> Delivery | None:
        claim = self._ops.get(delivery_id_key(webhook_id, delivery_id))
        if claim is None:
            return None
        item = self._ops.get(delivery_key(webhook_id, integer(claim, "sequence")))
        return None if item is None else delivery_of(item)

    def deliveries_of(self, webhook_id: str, state: DeliveryState | None, limit: int, offset: int) -> list[Delivery]:
        if limit <= 0:
            return []
        offset = max(offset, 0)
        request: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :d)",
            "ExpressionAttributeValues": placeholders(pk=deliveries_pk(webhook_id), d="D#"),
            "ScanIndexForward": False,
            "ConsistentRead": True,
        }
        if state is None:
            request["first_page"] = offset + limit
        else:
            request["FilterExpression"] = "#state = :state"
            request["ExpressionAttributeNames"] = {"#state": "state"}
            request["ExpressionAttributeValues"] |= placeholders(state=state)
        page = itertools.islice(self._ops.items("query", **request), offset, offset + limit)
        return [delivery_of(i) for i in page]

    def count_deliveries(self, webhook_id: str, state: DeliveryState | None) -> int:
        queue = self._queue(webhook_id)
        return 0 if queue is None else queue.count(state)

    def cancel_pending(self, webhook_id: str, at: datetime) -> int:
        cancelled = 0
        while True:
            part = self._retrying(lambda: self._cancel_part(webhook_id, at))
            cancelled += part
            if not part:
                return cancelled

    def _cancel_part(self, webhook_id: str, at: datetime) -> int:
        """One transaction: the first pending deliveries that fit it cancelled, the queue's head moved on."""
        queue = self._queue(webhook_id)
        if queue is None:
            return 0
        pending = list(itertools.islice(self._pending_items(webhook_id), MAX_TRANSACTION - 2))
        if not pending:
            return 0
        part, rest = pending[: MAX_TRANSACTION - 3], pending[MAX_TRANSACTION - 3 :]
        after = queue.moved(DeliveryState.PENDING, DeliveryState.CANCELLED, len(part))
        following = delivery_of(rest[0]) if rest else None
        after = after.headed(None, None) if following is None else after.headed(following.sequence, due_at(following))
        actions = [self._cancel(item, at) for item in part]
        self._transact([*actions, *self._queue_writes(queue, after)])
        return len(part)

    def _cancel(self, item: Item, at: datetime) -> dict[str, Any]:
        return {
            "Update": {
                "TableName": self._ops.table,
                "Key": key_of(item),
                "UpdateExpression": "SET #state = :cancelled, finished_at = :at REMOVE next_attempt_at",
                "ConditionExpression": "#state = :pending",
                "ExpressionAttributeNames": {"#state": "state"},
                "ExpressionAttributeValues": placeholders(cancelled=DeliveryState.CANCELLED, pending=PENDING, at=at),
            }
        }


def _fitting(
    webhook: Webhook, queue: Queue, events: list[tuple[str, OutboundEvent]], at: datetime, due: datetime
) -> list[Delivery]:
    """The deliveries of the first events that fit one transaction (two actions each beside the queue's three, and
    TRANSACTION_BYTES), numbered after the queue's last sequence."""
    part: list[Delivery] = []
    size = 0
    for made_id, event in events:
        delivery = Delivery(made_id, webhook.id, webhook.project_id, queue.seq + len(part) + 1, event, at, due)
        weight = item_size(delivery_item(delivery)) + 512
        if part and (3 + 2 * (len(part) + 1) > MAX_TRANSACTION or size + weight > TRANSACTION_BYTES):
            break
        part.append(delivery)
        size += weight
    return part
