"""The DynamoDB store of platform webhooks and their deliveries (mnemo.ports.webhook_store), in the accounts table
beside the tenancy items (every partition key under `T#`; no secondary index: every read is a strongly consistent
read of the base table). The items are in webhook_items.py; the queue item's transactions in webhook_queue.py; the
deliveries in webhook_deliveries.py; the webhooks themselves and a delete's erasure here.

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

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from mnemo.adapters.dynamodb.attributes import Item, attributes, placeholders, text
from mnemo.adapters.dynamodb.codec import expiry, json_attribute, json_value, key, key_of, ordered_sk
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE
from mnemo.adapters.dynamodb.webhook_deliveries import WebhookDeliveries
from mnemo.adapters.dynamodb.webhook_items import (
    ERASED_AT,
    deliveries_pk,
    delivery_key,
    due_key,
    erased_key,
    erased_pk,
    new_queue_item,
    project_webhooks_pk,
    queue_key,
    webhook_item,
    webhook_key,
    webhook_of,
)
from mnemo.domain.erasure import ERASED_KEPT, Erasure, changed_memory, erased_late, scrubbed_outbound
from mnemo.domain.memory import now
from mnemo.domain.webhooks import Attempt, Delivery, OutboundEvent, Webhook, without_answers
from mnemo.errors import ConflictError

ERASE_TRIES = 5  # rewrites of one delivery that a dispatcher's concurrent saves may each make fail


class DynamoWebhookStore(WebhookDeliveries):
    def add_webhook(self, webhook: Webhook) -> None:
        list_sk = ordered_sk(webhook.created_at, self._seq.next(), webhook.id)
        pointer = {**key(project_webhooks_pk(webhook.project_id), list_sk), **attributes(webhook_id=webhook.id)}
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
            text(i, "id"): webhook_of(i)
            for i in self._ops.batch_get([webhook_key(text(p, "webhook_id")) for p in pointers])
        }
        return [found[text(p, "webhook_id")] for p in pointers if text(p, "webhook_id") in found]

    def save_webhook(self, webhook: Webhook) -> None:
        """The webhook replaced (nothing when it is not stored); its queue follows whether it is active."""

        def attempt() -> None:
            stored, queue = self._ops.get(webhook_key(webhook.id)), self._queue(webhook.id)
            if stored is None or queue is None:
                return
            put = self._ops.put(webhook_item(webhook, text(stored, "list_sk")))
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
            pointer = key(project_webhooks_pk(text(stored, "project_id")), text(stored, "list_sk"))
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
            self.delete_webhook(text(pointer, "webhook_id"))
        self._ops.delete_many(pointers)  # any left by a webhook deleted halfway
        self._ops.delete_as_found(self._ops.partition_keys(erased_pk(project_id), consistent=False))

    def _delete_deliveries(self, webhook_id: str) -> None:
        self._ops.delete_as_found(self._ops.partition_keys(deliveries_pk(webhook_id), consistent=False))

    def erase_from_deliveries(self, project_id: str, erasure: Erasure) -> int:
        """Each delivery of the project's webhooks naming an erased memory: its event attribute rewritten and its
        attempts without the receiver's answers, which may echo what was erased (an UpdateItem that touches nothing
        else, stamped `erased_at`, on condition that the delivery still exists and its attempts are those read;
        a delivery saved meanwhile is read again). A Query of each webhook's deliveries: one pass over what the
        project keeps. The erased ids are written first: an `enqueue` that stores a delivery after the pass has read
        its webhook's deliveries finds them when it looks after its write."""
        expires = {TTL_ATTRIBUTE: expiry(now() + ERASED_KEPT)}
        self._ops.batch_write(
            [
                {"PutRequest": {"Item": {**erased_key(project_id, m), **attributes(memory_id=m), **expires}}}
                for m in sorted(erasure.ids)
            ]
        )
        changed = 0
        for webhook in self.webhooks_of_project(project_id):
            for item in self._ops.partition(deliveries_pk(webhook.id), "D#"):
                if self._erase_from(item, lambda e: scrubbed_outbound(e, erasure)):
                    changed += 1
        return changed

    def enqueue(
        self, webhook: Webhook, events: Sequence[OutboundEvent], at: datetime, *, due: datetime | None = None
    ) -> list[Delivery]:
        """The deliveries stored, then the erased ids they name read (strongly consistent) and those deliveries
        rewritten without their text: a delete writes its ids before its pass over the deliveries, so either its
        pass finds the delivery or this finds its ids."""
        made = super().enqueue(webhook, events, at, due=due)
        named = {m for d in made if (m := changed_memory(d.event)) is not None}
        if not named:
            return made
        found = self._ops.batch_get([erased_key(webhook.project_id, m) for m in named], ["memory_id"])
        erased = frozenset(text(i, "memory_id") for i in found)
        kept: list[Delivery] = []
        for delivery in made:
            clean = erased_late(delivery.event, erased)
            if clean is None:
                kept.append(delivery)
                continue
            item = self._ops.get(delivery_key(webhook.id, delivery.sequence))
            if item is not None:
                self._erase_from(item, lambda e: erased_late(e, erased))
            kept.append(replace(delivery, event=clean))
        return kept

    def _erase_from(self, item: Item, scrub: Callable[[OutboundEvent], OutboundEvent | None]) -> bool:
        for _ in range(ERASE_TRIES):
            clean = scrub(OutboundEvent.from_json(json_value(item, "event")))
            if clean is None:
                return False
            if self._rewrite(item, clean):
                return True
            found = self._ops.get(key_of(item))
            if found is None:
                return False  # deleted meanwhile (its webhook went)
            item = found
        raise ConflictError("The delivery log kept changing while a delete erased from it; try the delete again.")

    def _rewrite(self, item: Item, event: OutboundEvent) -> bool:
        """The event and the attempts (without answers) rewritten, if the attempts are still those of `item`."""
        attempts = without_answers([Attempt.from_json(a) for a in json_value(item, "attempts")])
        written = {
            **json_attribute("event", event.to_json()),
            **json_attribute("attempts", [a.to_json() for a in attempts]),
        }
        dropped = [name[:-2] if name.endswith("_z") else f"{name}_z" for name in written]  # the other form of each
        read_as = "attempts_z" if "attempts_z" in item else "attempts"
        names = {f"#s{i}": name for i, name in enumerate(written)} | {f"#r{i}": name for i, name in enumerate(dropped)}
        values = {f":s{i}": value for i, value in enumerate(written.values())}
        sets = ", ".join(f"#s{i} = :s{i}" for i in range(len(written)))
        removes = ", ".join(f"#r{i}" for i in range(len(dropped)))
        rewritten = self._ops.conditionally(
            "update_item",
            Key=key_of(item),
            UpdateExpression=f"SET {sets}, #erased = :at REMOVE {removes}",
            ConditionExpression="attribute_exists(pk) AND #read = :read",  # else deleted or tried meanwhile
            ExpressionAttributeNames={**names, "#erased": ERASED_AT, "#read": read_as},
            ExpressionAttributeValues={**values, **placeholders(at=now()), ":read": item[read_as]},
        )
        return rewritten is not None
