"""The items of the webhook store (webhook_store.py) in the accounts table, every partition key under `T#`:

| item | `pk` | `sk` | attributes |
|---|---|---|---|
| webhook | `T#WH#<id>` | `WH` | the webhook (`event_types` as JSON text), `list_sk` |
| queue | `T#WH#<id>` | `QUEUE` | `seq` (last sequence given), version, `active`, `head`, `head_due`, `due_sk`, `n_*` |
| webhook of a project | `T#WEBHOOKS#<project id>` | `<created_at>#<write order>#<id>` | webhook_id |
| delivery | `T#WHD#<webhook id>` | `D#<sequence, 12 digits>` | the delivery (`event`, `attempts`: JSON; `erased_at`) |
| delivery by id | `T#WHD#<webhook id>` | `I#<delivery id>` | sequence |
| due head | `T#WHDUE#<crc32(webhook id) mod 8>` | `<when due, ISO>#<webhook id>` | webhook_id, head |

`Queue` is what a queue item holds: the webhook's last sequence number, the head of its queue and when it is due,
and the count of its deliveries in each state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from mnemo.adapters.dynamodb.attributes import Item, attributes, integer
from mnemo.adapters.dynamodb.codec import json_attribute, json_of, json_string, json_value, key, shard_of
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.domain.timefmt import iso
from mnemo.domain.webhooks import Attempt, Delivery, DeliveryState, OutboundEvent, Webhook

DUE_SHARDS = 8
SEQUENCE_DIGITS = 12
STATES = tuple(DeliveryState)  # the order of a queue's counts
ERASED_AT = "erased_at"  # when a delete last scrubbed the delivery's event (save_delivery is conditioned on it)


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


def erased_pk(project_id: str) -> str:
    return f"T#WHERASED#{project_id}"


def erased_key(project_id: str, memory_id: str) -> Item:
    """What remembers that a delete erased this memory of the project (domain.erasure.ERASED_KEPT, then expires)."""
    return key(erased_pk(project_id), f"M#{memory_id}")


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
    counts: tuple[int, ...]  # deliveries of each DeliveryState, in STATES order

    @property
    def due_sk(self) -> str | None:
        """The sort key of the webhook's due-head item: present while it is active and has a head."""
        if not self.active or self.head is None or self.head_due is None:
            return None
        return f"{self.head_due}#{self.webhook_id}"

    def count(self, state: DeliveryState | None) -> int:
        return sum(self.counts) if state is None else self.counts[STATES.index(state)]

    def moved(self, old: DeliveryState | None, new: DeliveryState, number: int = 1) -> Queue:
        counts = list(self.counts)
        if old is not None:
            counts[STATES.index(old)] -= number
        counts[STATES.index(new)] += number
        return replace(self, counts=tuple(counts))

    def headed(self, sequence: int | None, due: datetime | None) -> Queue:
        return replace(self, head=sequence, head_due=None if due is None else iso(due))


def queue_of(item: Item) -> Queue:
    counts = tuple(integer(item, f"n_{s.value}") if f"n_{s.value}" in item else 0 for s in STATES)
    return from_item(Queue, item, counts=counts)


def new_queue_item(webhook: Webhook) -> Item:
    return {
        **queue_key(webhook.id),
        **attributes(webhook_id=webhook.id, version=0, seq=0, active=webhook.is_active),
        **attributes(**{f"n_{s.value}": 0 for s in STATES}),
    }


# ---- items --------------------------------------------------------------------------------------------------


def webhook_item(w: Webhook, list_sk: str) -> Item:
    """The webhook; its event types as JSON text, ASCII only."""
    return {
        **webhook_key(w.id),
        **as_attributes(w, omit=("event_types",)),
        "event_types": json_string(list(w.event_types), ensure_ascii=True),
        **attributes(list_sk=list_sk),
    }


def webhook_of(item: Item) -> Webhook:
    return from_item(Webhook, item, event_types=tuple(json_of(item, "event_types")))


def delivery_item(d: Delivery) -> Item:
    """The delivery; its event and attempts as JSON (compressed when large)."""
    return {
        **delivery_key(d.webhook_id, d.sequence),
        **as_attributes(d, omit=("event", "attempts")),
        **json_attribute("event", d.event.to_json()),
        **json_attribute("attempts", [a.to_json() for a in d.attempts]),
    }


def delivery_of(item: Item) -> Delivery:
    event = OutboundEvent.from_json(json_value(item, "event"))
    attempts = tuple(Attempt.from_json(a) for a in json_value(item, "attempts"))
    return from_item(Delivery, item, event=event, attempts=attempts)
