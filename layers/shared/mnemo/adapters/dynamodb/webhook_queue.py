"""The queue item of each webhook (webhook_items.py): every change of a webhook's deliveries is one transaction that
moves the queue item from the `version` it read to the next (a conditional update: of two concurrent writers one
reads again and retries), and moves the webhook's due-head item along with it. The base of the webhook store.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, TypeVar

from mnemo.adapters.dynamodb.attributes import Item, attributes, placeholders, text, value
from mnemo.adapters.dynamodb.operations import TransactionCancelledError
from mnemo.adapters.dynamodb.table_store import TableStore
from mnemo.adapters.dynamodb.webhook_items import (
    SEQUENCE_DIGITS,
    STATES,
    Queue,
    deliveries_pk,
    delivery_key,
    delivery_of,
    due_at,
    due_key,
    queue_key,
    queue_of,
)
from mnemo.domain.webhooks import DeliveryState

MAX_CONFLICTS = 200  # transactions lost to concurrent writers of one webhook's queue before giving up
PENDING = DeliveryState.PENDING.value
_T = TypeVar("_T")


class _QueueConflictError(Exception):
    """A transaction lost to a concurrent writer of the same queue: read again and retry."""


class WebhookQueue(TableStore):
    def _queue(self, webhook_id: str) -> Queue | None:
        item = self._ops.get(queue_key(webhook_id))
        return None if item is None else queue_of(item)

    def _queue_writes(self, before: Queue, after: Queue) -> list[dict[str, Any]]:
        """The queue item moved from `before`'s version to the next, and its due-head item moved along."""
        values = placeholders(v=before.version, next=before.version + 1, seq=after.seq, active=after.active)
        values |= placeholders(**{f"n{i}": n for i, n in enumerate(after.counts)})
        assigned = ["version = :next", "seq = :seq", "active = :active"]
        assigned += [f"n_{s.value} = :n{i}" for i, s in enumerate(STATES)]
        removed: list[str] = []
        for name, given in (("head", after.head), ("head_due", after.head_due), ("due_sk", after.due_sk)):
            if given is None:
                removed.append(name)
            else:
                assigned.append(f"{name} = :{name}")
                values[f":{name}"] = value(given)
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
            head = attributes(webhook_id=after.webhook_id, head=after.head or 0)
            writes.append(self._ops.put({**due_key(after.webhook_id, after.due_sk), **head}))
        return writes

    def _delete(self, item_key: Item, version: int | None = None) -> dict[str, Any]:
        request: dict[str, Any] = {"TableName": self._ops.table, "Key": item_key}
        if version is not None:
            request["ConditionExpression"] = "version = :v"
            request["ExpressionAttributeValues"] = placeholders(v=version)
        return {"Delete": request}

    def _transact(self, actions: list[dict[str, Any]]) -> None:
        try:
            self._ops.transact(actions)
        except TransactionCancelledError as cancelled:
            raise _QueueConflictError from cancelled

    def _retrying(self, attempt: Callable[[], _T]) -> _T:
        """Run `attempt` (reads, then one transaction) again while it loses to concurrent writers."""
        for tried in range(MAX_CONFLICTS):
            try:
                return attempt()
            except _QueueConflictError:
                self._sleep(min(0.01 * 2 ** min(tried, 6), 0.5) * random.random())
        raise RuntimeError("A webhook's deliveries kept changing while being written; giving up.")

    def _next_pending(self, webhook_id: str, after: int) -> tuple[int | None, datetime | None]:
        """The pending delivery of the lowest sequence above `after`, and when it is due."""
        for item in self._pending_items(webhook_id, after):
            found = delivery_of(item)
            return found.sequence, due_at(found)
        return None, None

    def _pending_items(self, webhook_id: str, after: int = 0) -> Iterator[Item]:
        low, high = text(delivery_key(webhook_id, after + 1), "sk"), "D#" + "9" * SEQUENCE_DIGITS
        return self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk AND sk BETWEEN :low AND :high",
            FilterExpression="#state = :pending",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues=placeholders(pk=deliveries_pk(webhook_id), low=low, high=high, pending=PENDING),
            ConsistentRead=True,
        )
