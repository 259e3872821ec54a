"""A project's events on the accounts table (mnemo.ports.tenancy_store.EventStore): `T#EVENTS#<project>` /
`<created>#<write order>#<id>`, found by id through a pointer in the project's partition, counted per type, and
marked while unfinished (PENDING or RUNNING) in their project's `T#UNFINISHED#<shard>`.

`update_event` follows the status rule of the port: its put is conditioned on the stored event being unfinished,
or already at the status written (an ended event takes more results, never another status), so a worker's
progress write cannot undo a cancel that landed between its read and its write.

With an outbox (TenancyTable's `outbox`), the store is also the ChangeOutbox of the ingest jobs' ends: when
`update_event` moves an asynchronous add (or an import) to its end, the job's webhook event (`job_event`) goes into
`T#OUTBOX` in the same transaction. That put is conditioned on the stored event being unfinished still; should it
have that end already (a redelivered job message), the event alone is written again: one webhook event per end.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from mnemo.adapters.dynamodb.attributes import Item, attributes, integer, placeholders, text
from mnemo.adapters.dynamodb.codec import key, key_of
from mnemo.adapters.dynamodb.operations import TransactionCancelledError, fitting
from mnemo.adapters.dynamodb.outbox import notify
from mnemo.adapters.dynamodb.tenancy_store.items import UNFINISHED_STATES, event_attributes, event_of
from mnemo.adapters.dynamodb.tenancy_store.keys import (
    EVENT_COUNT,
    UNFINISHED_SHARDS,
    event_count_key,
    event_pointer_key,
    events_pk,
    project_pk,
    unfinished_marker,
    unfinished_shard_pk,
)
from mnemo.adapters.dynamodb.tenancy_store.table import TenancyTable
from mnemo.domain.erasure import Erasure, scrubbed_event
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.domain.webhooks import OutboundEvent, job_event

log = logging.getLogger("mnemo.dynamodb")


class DynamoEventStore(TenancyTable):
    def _event_sk(self, project_id: str, event_id: str) -> str | None:
        pointer = self._ops.get(event_pointer_key(project_id, event_id))
        return None if pointer is None else text(pointer, "event_sk")

    def save_event(self, event: PlatformEvent) -> None:
        """Insert or overwrite, in one transaction with the event's marker among the unfinished ones (put while
        PENDING or RUNNING, deleted once finished) and, on insert, the count of the project's events of its
        type (`EVENTCOUNT#<type>`: listing events pages without reading them all to count them)."""
        for _attempt in range(5):
            sk = self._event_sk(event.project_id, event.id)
            actions: list[dict[str, Any]] = []
            if sk is None:
                sk = self._ordered_sk(event.created_at, event.id)
                pointer = {**event_pointer_key(event.project_id, event.id), **attributes(event_sk=sk)}
                actions.append(self._ops.put_new(pointer))  # a concurrent first save: read the winner's sk
                actions.append(self._ops.add_to(event_count_key(event.project_id, event.event_type), "value", 1))
            try:
                self._ops.transact(actions + self._event_writes(event, sk))
                return
            except TransactionCancelledError:
                continue
        raise RuntimeError(f"Event {event.id} kept changing while being saved; giving up.")

    def update_event(self, event: PlatformEvent) -> bool:
        """The overwrite, on the condition that the event's by-id pointer is still there (a project delete removes
        it first: a worker finishing an add of a deleted project writes nothing back) and that the stored status
        allows it (`_allowed`). An ingest job's end also writes its webhook event (with an outbox), once."""
        sk = self._event_sk(event.project_id, event.id)
        if sk is None:
            return False
        pointer = event_pointer_key(event.project_id, event.id)
        still_there = {
            "ConditionCheck": {
                "TableName": self._ops.table,
                "Key": pointer,
                "ConditionExpression": "attribute_exists(pk)",
            }
        }
        ending = job_event(event) if self._outbox is not None else None
        if ending is None or self._outbox is None:
            return self._overwrite(still_there, event, sk, same_end=True)
        writes = _allowed(self._event_writes(event, sk), event, same_end=False)
        writes.append(self._outbox.put(ending))
        try:
            self._ops.transact([still_there, *writes])
        except TransactionCancelledError as cancelled:
            if cancelled.failed(0):
                return False
            if not cancelled.failed(1):
                raise
            # Not unfinished: the same end is stored already (its event was written then), or another one.
            return self._overwrite(still_there, event, sk, same_end=True)
        notify(self._on_outbox, log, "the tenancy store")
        return True

    def _overwrite(self, still_there: dict[str, Any], event: PlatformEvent, sk: str, *, same_end: bool) -> bool:
        """The event written on the status rule; False when it is gone or the rule refuses it."""
        try:
            self._ops.transact([still_there, *_allowed(self._event_writes(event, sk), event, same_end=same_end)])
        except TransactionCancelledError as cancelled:
            if cancelled.failed(0) or cancelled.failed(1):
                return False
            raise
        return True

    # ---- the outbox of the ingest jobs' ends ----

    def pending(self, limit: int) -> list[OutboundEvent]:
        """The oldest unpublished job events, oldest first, each with its project as its namespace."""
        return [] if self._outbox is None else self._outbox.pending(limit)

    def published(self, event_ids: Sequence[str]) -> None:
        if self._outbox is not None:
            self._outbox.published(event_ids)

    def _event_writes(self, event: PlatformEvent, sk: str) -> list[dict[str, Any]]:
        """The event item, and its unfinished marker put or deleted."""
        marker = unfinished_marker(event.project_id, sk)
        writes = [self._ops.put({**key(events_pk(event.project_id), sk), **event_attributes(event)})]
        if event.status in UNFINISHED_STATES:
            writes.append(self._ops.put(marker))
        else:
            writes.append({"Delete": {"TableName": self._ops.table, "Key": key_of(marker)}})
        return writes

    def get_event(self, project_id: str, event_id: str) -> PlatformEvent | None:
        sk = self._event_sk(project_id, event_id)
        item = None if sk is None else self._ops.get(key(events_pk(project_id), sk))
        return None if item is None else event_of(item)

    def events_of_project(self, project_id: str, limit: int, offset: int) -> list[PlatformEvent]:
        if limit <= 0:
            return []
        out: list[PlatformEvent] = []
        items = self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues=placeholders(pk=events_pk(project_id)),
            ScanIndexForward=False,
            ConsistentRead=True,
            first_page=offset + limit,
        )
        for position, item in enumerate(items):
            if position >= offset:
                out.append(event_of(item))
            if len(out) >= limit:
                break
        return out

    def count_events(self, project_id: str, event_type: str | None = None) -> int:
        if event_type is not None:
            found = self._ops.get(event_count_key(project_id, event_type))
            return 0 if found is None else integer(found, "value")
        return sum(integer(i, "value") for i in self._ops.partition(project_pk(project_id), EVENT_COUNT))

    def erase_from_events(self, project_id: str, erasure: Erasure) -> int:
        """A Query of the project's events (its partition, oldest first); each whose results name an erased memory
        rewritten (a Put of the same key on condition that it is still there, its other attributes as read)."""
        changed = 0
        for item in self._ops.partition(events_pk(project_id)):
            clean = scrubbed_event(event_of(item), erasure)
            if clean is None:
                continue
            rewritten = self._ops.conditionally(
                "put_item",
                Item=fitting({**key_of(item), **event_attributes(clean)}),
                ConditionExpression="attribute_exists(pk) AND #status = :status",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={":status": item["status"]},
            )
            # None: changed or deleted meanwhile (an event that ended has no more results coming)
            changed += rewritten is not None
        return changed

    def _marked(self, markers: list[Item]) -> list[Item | None]:
        """The event item of each unfinished marker, None where the event is gone."""
        keys = [key(events_pk(text(m, "project_id")), text(m, "sk")) for m in markers]
        by_key = {(text(i, "pk"), text(i, "sk")): i for i in self._ops.batch_get(keys)}
        return [by_key.get((text(k, "pk"), text(k, "sk"))) for k in keys]

    def unfinished_events(self) -> list[PlatformEvent]:
        shards = (self._ops.partition(unfinished_shard_pk(n)) for n in range(UNFINISHED_SHARDS))
        markers = sorted((m for shard in shards for m in shard), key=lambda m: text(m, "sk"))  # oldest first
        events = self._marked(markers)
        orphans = [m for m, e in zip(markers, events, strict=True) if e is None]
        self._ops.delete_many(orphans)  # left by a delete of their project: nothing will ever finish them
        return [e for e in (event_of(i) for i in events if i is not None) if e.status in UNFINISHED_STATES]


def _allowed(writes: list[dict[str, Any]], event: PlatformEvent, *, same_end: bool) -> list[dict[str, Any]]:
    """The event's writes with its put conditioned on the status rule: the stored event is unfinished (PENDING or
    RUNNING) or, with `same_end`, has the status written already. An ended event never moves to another status."""
    put = writes[0]["Put"]
    condition = "attribute_not_exists(pk) OR #status IN (:pending, :running)"
    put["ConditionExpression"] = condition + (" OR #status = :next" if same_end else "")
    put["ExpressionAttributeNames"] = {"#status": "status"}
    values = {"pending": EventStatus.PENDING.value, "running": EventStatus.RUNNING.value}
    put["ExpressionAttributeValues"] = placeholders(**values, **({"next": event.status.value} if same_end else {}))
    return writes
