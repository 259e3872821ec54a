"""The DynamoDB store of platform webhooks and their deliveries (mnemo.ports.webhook_store), in the accounts table
beside the tenancy items (every partition key under `T#`; no secondary index: every read is a strongly consistent
read of the base table).

| item | `pk` | `sk` | attributes |
|---|---|---|---|
| webhook | `T#WH#<id>` | `WH` | the webhook (`event_types` as JSON text), `list_sk` |
| queue | `T#WH#<id>` | `QUEUE` | `seq` (last sequence given), version, `active`, `head`, `head_due`, `due_sk`, `n_*` |
| webhook of a project | `T#WEBHOOKS#<project id>` | `<created_at>#<write order>#<id>` | webhook_id |
| delivery | `T#WHD#<webhook id>` | `D#<sequence, 12 digits>` | the delivery (`event`, `attempts`: JSON; `erased_at`) |
| delivery by id | `T#WHD#<webhook id>` | `I#<delivery id>` | sequence |
| due head | `T#WHDUE#<crc32(webhook id) mod 8>` | `<when due, ISO>#<webhook id>` | webhook_id, head |

**One queue item per webhook.** Every change of a webhook's deliveries (an enqueue, a saved attempt, a
cancellation) is one transaction that also moves the webhook's queue item from the `version` it read to the next
(a conditional update: of two concurrent writers one retries on what the other wrote). So the queue item always
knows the webhook's last sequence number (sequences are given in the transaction that stores the deliveries: no
gap, no double), the head of its queue (its PENDING delivery of the lowest sequence, `head`) and when the head is
due (`head_due`: its next attempt), and counts the deliveries of each state (`n_pending`, ...: the delivery log's
totals without reading it). An enqueue puts each delivery with its by-id item on `attribute_not_exists`: an event
is delivered to a webhook once, whoever enqueues it and however often.

**What is due.** The queue item's transaction also keeps the webhook's one "due head" item: it exists exactly while
the webhook is active and has a head, its sort key is when the head is due. `due(at)` is one Query per shard
(8 in all) for the sort keys up to `at` and a BatchGetItem of those heads; `next_due_at` the first item of each
shard: a few queries, whatever the number of deliveries kept.

Deleting a webhook deletes its item, its queue, its due head and its project's pointer in one transaction (an
enqueue or a save that comes after finds no queue and writes nothing), then its deliveries' partition.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.codec import (
    Item,
    WriteOrder,
    json_attribute,
    json_value,
    key,
    key_of,
    moment,
    moment_of,
    moment_or_none,
    number,
    optional,
    ordered_sk,
    shard_of,
    string,
)
from mnemo.adapters.dynamodb.operations import (
    MAX_BATCH_GET,
    MAX_TRANSACTION,
    Operations,
    TransactionCancelledError,
    condition_failed,
    item_size,
    projection,
)
from mnemo.domain.erasure import Erasure, scrubbed_outbound
from mnemo.domain.memory import now
from mnemo.domain.timefmt import from_iso, iso
from mnemo.domain.webhooks import Attempt, Delivery, DeliveryState, OutboundEvent, Webhook, delivery_id

DUE_SHARDS = 8
SEQUENCE_DIGITS = 12
TRANSACTION_BYTES = 3_500_000  # a TransactWriteItems holds 4 MB at most
MAX_CONFLICTS = 200  # transactions lost to concurrent writers of one webhook's queue before giving up
_STATES = tuple(DeliveryState)
_PENDING = DeliveryState.PENDING.value
ERASED_AT = "erased_at"  # when a delete last scrubbed the delivery's event (save_delivery is conditioned on it)
T = TypeVar("T")


# ---- keys ---------------------------------------------------------------------------------------------------


def webhook_key(webhook_id: str) -> Item:
    return key(f"T#WH#{webhook_id}", "WH")


def queue_key(webhook_id: str) -> Item:
    return key(f"T#WH#{webhook_id}", "QUEUE")


def project_webhooks_pk(project_id: str) -> str:
    return f"T#WEBHOOKS#{project_id}"


def deliveries_pk(webhook_id: str) -> str:
    return f"T#WHD#{webhook_id}"


def delivery_key(webhook_id: str, sequence: int) -> Item:
    return key(deliveries_pk(webhook_id), f"D#{sequence:0{SEQUENCE_DIGITS}d}")


def delivery_id_key(webhook_id: str, made_id: str) -> Item:
    return key(deliveries_pk(webhook_id), f"I#{made_id}")


def due_pk(shard: int) -> str:
    return f"T#WHDUE#{shard}"


def due_key(webhook_id: str, due_sk: str) -> Item:
    return key(due_pk(shard_of(webhook_id, DUE_SHARDS)), due_sk)


# ---- the queue of one webhook -------------------------------------------------------------------------------


def due_at(delivery: Delivery) -> datetime:
    """When a pending delivery is due: its next attempt (from its creation when it has none)."""
    return delivery.next_attempt_at or delivery.created_at


@dataclass(frozen=True, slots=True)
class Queue:
    webhook_id: str
    version: int
    seq: int  # the last sequence number given
    active: bool
    head: int | None  # the sequence of the PENDING delivery of the lowest sequence
    head_due: str | None  # when the head is due (ISO)
    counts: tuple[int, ...]  # deliveries of each DeliveryState, in _STATES order

    @property
    def due_sk(self) -> str | None:
        """The sort key of the webhook's due-head item: present while it is active and has a head."""
        if not self.active or self.head is None or self.head_due is None:
            return None
        return f"{self.head_due}#{self.webhook_id}"

    def count(self, state: DeliveryState | None) -> int:
        return sum(self.counts) if state is None else self.counts[_STATES.index(state)]

    def moved(self, old: DeliveryState | None, new: DeliveryState, number: int = 1) -> Queue:
        counts = list(self.counts)
        if old is not None:
            counts[_STATES.index(old)] -= number
        counts[_STATES.index(new)] += number
        return replace(self, counts=tuple(counts))

    def headed(self, sequence: int | None, due: datetime | None) -> Queue:
        return replace(self, head=sequence, head_due=None if due is None else iso(due))


def queue_of(item: Item) -> Queue:
    return Queue(
        webhook_id=item["webhook_id"]["S"],
        version=int(item["version"]["N"]),
        seq=int(item["seq"]["N"]),
        active=bool(item["active"]["BOOL"]),
        head=int(item["head"]["N"]) if "head" in item else None,
        head_due=item["head_due"]["S"] if "head_due" in item else None,
        counts=tuple(int(item.get(f"n_{s.value}", {"N": "0"})["N"]) for s in _STATES),
    )


def new_queue_item(webhook: Webhook) -> Item:
    return {
        **queue_key(webhook.id),
        "webhook_id": string(webhook.id),
        "version": number(0),
        "seq": number(0),
        "active": {"BOOL": webhook.is_active},
        **{f"n_{s.value}": number(0) for s in _STATES},
    }


# ---- items --------------------------------------------------------------------------------------------------


def webhook_item(w: Webhook, list_sk: str) -> Item:
    return {
        **webhook_key(w.id),
        "id": string(w.id),
        "project_id": string(w.project_id),
        "name": string(w.name),
        "url": string(w.url),
        "event_types": string(json.dumps(list(w.event_types))),
        "owner": string(w.owner),
        "secret": string(w.secret),
        "created_at": moment(w.created_at),
        "updated_at": moment(w.updated_at),
        "is_active": {"BOOL": w.is_active},
        "list_sk": string(list_sk),
        **optional(
            previous_secret=w.previous_secret,
            previous_secret_expires_at=w.previous_secret_expires_at,
            deactivated_reason=w.deactivated_reason,
        ),
    }


def webhook_of(item: Item) -> Webhook:
    return Webhook(
        id=item["id"]["S"],
        project_id=item["project_id"]["S"],
        name=item["name"]["S"],
        url=item["url"]["S"],
        event_types=tuple(json.loads(item["event_types"]["S"])),
        owner=item["owner"]["S"],
        secret=item["secret"]["S"],
        created_at=moment_of(item, "created_at"),
        updated_at=moment_of(item, "updated_at"),
        is_active=bool(item["is_active"]["BOOL"]),
        previous_secret=item["previous_secret"]["S"] if "previous_secret" in item else None,
        previous_secret_expires_at=moment_or_none(item, "previous_secret_expires_at"),
        deactivated_reason=item["deactivated_reason"]["S"] if "deactivated_reason" in item else None,
    )


def delivery_item(d: Delivery) -> Item:
    attempts = [a.to_json() for a in d.attempts]
    return {
        **delivery_key(d.webhook_id, d.sequence),
        "id": string(d.id),
        "webhook_id": string(d.webhook_id),
        "project_id": string(d.project_id),
        "sequence": number(d.sequence),
        "state": string(d.state.value),
        "created_at": moment(d.created_at),
        **optional(next_attempt_at=d.next_attempt_at, finished_at=d.finished_at),
        **json_attribute("event", d.event.to_json()),
        **json_attribute("attempts", attempts),
    }


def delivery_of(item: Item) -> Delivery:
    return Delivery(
        id=item["id"]["S"],
        webhook_id=item["webhook_id"]["S"],
        project_id=item["project_id"]["S"],
        sequence=int(item["sequence"]["N"]),
        event=OutboundEvent.from_json(json_value(item, "event")),
        created_at=moment_of(item, "created_at"),
        next_attempt_at=moment_or_none(item, "next_attempt_at"),
        state=DeliveryState(item["state"]["S"]),
        attempts=tuple(Attempt.from_json(a) for a in json_value(item, "attempts")),
        finished_at=moment_or_none(item, "finished_at"),
    )


class _ConflictError(Exception):
    """A transaction lost to a concurrent writer of the same queue: read again and retry."""


# ---- the store ----------------------------------------------------------------------------------------------


class DynamoWebhookStore:
    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._ops = Operations(client, table_name, page_size=page_size, sleep=sleep)
        self._seq = WriteOrder()
        self._sleep = sleep

    # ---- webhooks ----

    def add_webhook(self, webhook: Webhook) -> None:
        list_sk = ordered_sk(webhook.created_at, self._seq.next(), webhook.id)
        pointer = {**key(project_webhooks_pk(webhook.project_id), list_sk), "webhook_id": string(webhook.id)}
        self._ops.transact(
            [
                self._ops.put_new(webhook_item(webhook, list_sk)),
                self._ops.put_new(new_queue_item(webhook)),
                self._ops.put(pointer),
            ]
        )

    def get_webhook(self, webhook_id: str) -> Webhook | None:
        item = self._ops.get(webhook_key(webhook_id))
        return None if item is None else webhook_of(item)

    def webhooks_of_project(self, project_id: str) -> list[Webhook]:
        pointers = self._ops.partition(project_webhooks_pk(project_id))
        found = {
            i["id"]["S"]: webhook_of(i)
            for i in self._ops.batch_get([webhook_key(p["webhook_id"]["S"]) for p in pointers])
        }
        return [found[p["webhook_id"]["S"]] for p in pointers if p["webhook_id"]["S"] in found]

    def save_webhook(self, webhook: Webhook) -> None:
        """The webhook replaced (nothing when it is not stored); its queue follows whether it is active."""

        def attempt() -> None:
            stored, queue = self._ops.get(webhook_key(webhook.id)), self._queue(webhook.id)
            if stored is None or queue is None:
                return
            put = self._ops.put(webhook_item(webhook, stored["list_sk"]["S"]))
            put["Put"]["ConditionExpression"] = "attribute_exists(pk)"
            actions = [put]
            if queue.active != webhook.is_active:
                actions.extend(self._queue_writes(queue, replace(queue, active=webhook.is_active)))
            self._transact(actions)

        self._retrying(attempt)

    def delete_webhook(self, webhook_id: str) -> bool:
        def attempt() -> bool:
            stored, queue = self._ops.get(webhook_key(webhook_id)), self._queue(webhook_id)
            if stored is None:
                return False
            pointer = key(project_webhooks_pk(stored["project_id"]["S"]), stored["list_sk"]["S"])
            actions = [self._delete(webhook_key(webhook_id)), self._delete(pointer)]
            if queue is not None:
                actions.append(self._delete(queue_key(webhook_id), version=queue.version))
                if queue.due_sk is not None:
                    actions.append(self._delete(due_key(webhook_id, queue.due_sk)))
            self._transact(actions)
            return True

        deleted = self._retrying(attempt)
        if deleted:
            self._delete_deliveries(webhook_id)
        return deleted

    def delete_project_webhooks(self, project_id: str) -> None:
        pointers = self._ops.partition(project_webhooks_pk(project_id))
        for pointer in pointers:
            self.delete_webhook(pointer["webhook_id"]["S"])
        self._ops.delete_many(pointers)  # any left by a webhook deleted halfway

    def _delete_deliveries(self, webhook_id: str) -> None:
        doomed: list[Item] = []
        for item in self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": string(deliveries_pk(webhook_id))},
            **projection(["pk", "sk"]),
        ):
            doomed.append(item)
            if len(doomed) >= 500:
                self._ops.delete_many(doomed)
                doomed = []
        self._ops.delete_many(doomed)

    # ---- deliveries ----

    def enqueue(self, webhook: Webhook, events: Sequence[OutboundEvent], at: datetime) -> list[Delivery]:
        wanted: dict[str, OutboundEvent] = {}
        for event in events:
            wanted.setdefault(delivery_id(webhook.id, event.id), event)
        todo = list(wanted.items())
        made: list[Delivery] = []
        while todo:
            part = self._retrying(lambda: self._enqueue_part(webhook, todo, at))
            if part is None:
                return made  # the webhook is gone
            made.extend(part)
        return made

    def _enqueue_part(
        self, webhook: Webhook, todo: list[tuple[str, OutboundEvent]], at: datetime
    ) -> list[Delivery] | None:
        """One transaction: the next deliveries that fit it, numbered after the queue's last sequence, then taken
        off `todo` (as are the deliveries that exist already). None: the webhook is no longer stored."""
        queue = self._queue(webhook.id)
        if queue is None:
            return None
        candidates = todo[:MAX_BATCH_GET]  # more than one transaction holds: the rest are looked at next time
        existing = {
            i["sk"]["S"][2:]
            for i in self._ops.batch_get([delivery_id_key(webhook.id, made_id) for made_id, _ in candidates])
        }
        todo[:] = [(made_id, e) for made_id, e in todo if made_id not in existing]
        part: list[Delivery] = []
        size = 0
        for made_id, event in todo[: len(candidates) - len(existing)]:
            delivery = Delivery(made_id, webhook.id, webhook.project_id, queue.seq + len(part) + 1, event, at, at)
            weight = item_size(delivery_item(delivery)) + 512
            if part and (3 + 2 * (len(part) + 1) > MAX_TRANSACTION or size + weight > TRANSACTION_BYTES):
                break
            part.append(delivery)
            size += weight
        if not part:
            return []
        after = replace(queue, seq=queue.seq + len(part)).moved(None, DeliveryState.PENDING, len(part))
        if queue.head is None:
            after = after.headed(part[0].sequence, at)
        actions = self._queue_writes(queue, after)
        for delivery in part:
            claim = {**delivery_id_key(webhook.id, delivery.id), "sequence": number(delivery.sequence)}
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
                    ExpressionAttributeValues={":pk": string(due_pk(n)), ":bound": string(bound)},
                    ConsistentRead=True,
                    first_page=limit,
                ),
                limit,
            )
            for n in range(DUE_SHARDS)
        ]
        heads = list(itertools.islice(heapq.merge(*shards, key=lambda i: i["sk"]["S"]), limit))
        found = self._ops.batch_get([delivery_key(h["webhook_id"]["S"], int(h["head"]["N"])) for h in heads])
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
                        ExpressionAttributeValues={":pk": string(due_pk(n))},
                        ConsistentRead=True,
                        first_page=1,
                    )
                ),
                None,
            )
            for n in range(DUE_SHARDS)
        ]
        dues = [f["sk"]["S"].split("#", 1)[0] for f in firsts if f is not None]
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
            if queue is None or stored is None or stored["id"]["S"] != delivery.id:
                return  # its webhook was deleted: nothing comes back
            after = self._after_save(queue, DeliveryState(stored["state"]["S"]), delivery)
            # The event as stored (scrubbed, should a delete have erased a memory it names), never the caller's.
            kept = replace(delivery, event=OutboundEvent.from_json(json_value(stored, "event")))
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

    def _next_pending(self, webhook_id: str, after: int) -> tuple[int | None, datetime | None]:
        """The pending delivery of the lowest sequence above `after`, and when it is due."""
        for item in self._pending_items(webhook_id, after):
            found = delivery_of(item)
            return found.sequence, due_at(found)
        return None, None

    def _pending_items(self, webhook_id: str, after: int = 0) -> Iterator[Item]:
        low, high = delivery_key(webhook_id, after + 1)["sk"], string("D#" + "9" * SEQUENCE_DIGITS)
        return self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk AND sk BETWEEN :low AND :high",
            FilterExpression="#state = :pending",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues={
                ":pk": string(deliveries_pk(webhook_id)),
                ":low": low,
                ":high": high,
                ":pending": string(_PENDING),
            },
            ConsistentRead=True,
        )

    def get_delivery(self, webhook_id: str, delivery_id: str) -> Delivery | None:
        claim = self._ops.get(delivery_id_key(webhook_id, delivery_id))
        if claim is None:
            return None
        item = self._ops.get(delivery_key(webhook_id, int(claim["sequence"]["N"])))
        return None if item is None else delivery_of(item)

    def deliveries_of(self, webhook_id: str, state: DeliveryState | None, limit: int, offset: int) -> list[Delivery]:
        if limit <= 0:
            return []
        offset = max(offset, 0)
        request: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :d)",
            "ExpressionAttributeValues": {":pk": string(deliveries_pk(webhook_id)), ":d": string("D#")},
            "ScanIndexForward": False,
            "ConsistentRead": True,
        }
        if state is None:
            request["first_page"] = offset + limit
        else:
            request["FilterExpression"] = "#state = :state"
            request["ExpressionAttributeNames"] = {"#state": "state"}
            request["ExpressionAttributeValues"][":state"] = string(state.value)
        page = itertools.islice(self._ops.items("query", **request), offset, offset + limit)
        return [delivery_of(i) for i in page]

    def count_deliveries(self, webhook_id: str, state: DeliveryState | None) -> int:
        queue = self._queue(webhook_id)
        return 0 if queue is None else queue.count(state)

    def erase_from_deliveries(self, project_id: str, erasure: Erasure) -> int:
        """Each delivery of the project's webhooks naming an erased memory: its event attribute rewritten (an
        UpdateItem that touches nothing else, stamped `erased_at`, on condition that the delivery still exists).
        A Query of each webhook's deliveries: one pass over what the project keeps."""
        changed = 0
        for webhook in self.webhooks_of_project(project_id):
            for item in self._ops.partition(deliveries_pk(webhook.id), "D#"):
                event = OutboundEvent.from_json(json_value(item, "event"))
                clean = scrubbed_outbound(event, erasure)
                if clean is not None and self._rewrite_event(key_of(item), clean):
                    changed += 1
        return changed

    def _rewrite_event(self, item_key: Item, event: OutboundEvent) -> bool:
        (name, value), *_ = json_attribute("event", event.to_json()).items()
        other = "event_z" if name == "event" else "event"
        try:
            self._ops.client.update_item(
                TableName=self._ops.table,
                Key=item_key,
                UpdateExpression="SET #ev = :ev, #erased = :at REMOVE #other",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#ev": name, "#erased": ERASED_AT, "#other": other},
                ExpressionAttributeValues={":ev": value, ":at": moment(now())},
            )
        except ClientError as exc:
            if condition_failed(exc):
                return False  # deleted meanwhile (its webhook went)
            raise
        return True

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
                "ExpressionAttributeValues": {
                    ":cancelled": string(DeliveryState.CANCELLED.value),
                    ":pending": string(_PENDING),
                    ":at": moment(at),
                },
            }
        }

    # ---- the queue item ----

    def _queue(self, webhook_id: str) -> Queue | None:
        item = self._ops.get(queue_key(webhook_id))
        return None if item is None else queue_of(item)

    def _queue_writes(self, before: Queue, after: Queue) -> list[dict[str, Any]]:
        """The queue item moved from `before`'s version to the next, and its due-head item moved along."""
        values: Item = {
            ":v": number(before.version),
            ":next": number(before.version + 1),
            ":seq": number(after.seq),
            ":active": {"BOOL": after.active},
            **{f":n{i}": number(n) for i, n in enumerate(after.counts)},
        }
        assigned = ["version = :next", "seq = :seq", "active = :active"]
        assigned += [f"n_{s.value} = :n{i}" for i, s in enumerate(_STATES)]
        removed: list[str] = []
        for name, value in (("head", after.head), ("head_due", after.head_due), ("due_sk", after.due_sk)):
            if value is None:
                removed.append(name)
            else:
                assigned.append(f"{name} = :{name}")
                values[f":{name}"] = number(value) if isinstance(value, int) else string(value)
        expression = "SET " + ", ".join(assigned) + (" REMOVE " + ", ".join(removed) if removed else "")
        writes: list[dict[str, Any]] = [
            {
                "Update": {
                    "TableName": self._ops.table,
                    "Key": queue_key(before.webhook_id),
                    "UpdateExpression": expression,
                    "ConditionExpression": "version = :v",
                    "ExpressionAttributeValues": values,
                }
            }
        ]
        if before.due_sk is not None and before.due_sk != after.due_sk:
            writes.append(self._delete(due_key(before.webhook_id, before.due_sk)))
        if after.due_sk is not None:
            head = {"webhook_id": string(after.webhook_id), "head": number(after.head or 0)}
            writes.append(self._ops.put({**due_key(after.webhook_id, after.due_sk), **head}))
        return writes

    def _delete(self, item_key: Item, version: int | None = None) -> dict[str, Any]:
        request: dict[str, Any] = {"TableName": self._ops.table, "Key": item_key}
        if version is not None:
            request["ConditionExpression"] = "version = :v"
            request["ExpressionAttributeValues"] = {":v": number(version)}
        return {"Delete": request}

    def _transact(self, actions: list[dict[str, Any]]) -> None:
        try:
            self._ops.transact(actions)
        except TransactionCancelledError as cancelled:
            raise _ConflictError from cancelled

    def _retrying(self, attempt: Callable[[], T]) -> T:
        """Run `attempt` (reads, then one transaction) again while it loses to concurrent writers."""
        for tried in range(MAX_CONFLICTS):
            try:
                return attempt()
            except _ConflictError:
                self._sleep(min(0.01 * 2 ** min(tried, 6), 0.5) * random.random())
        raise RuntimeError("A webhook's deliveries kept changing while being written; giving up.")
