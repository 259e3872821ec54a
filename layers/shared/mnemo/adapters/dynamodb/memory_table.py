"""What each part of the DynamoDB memory store stands on (memory_reads.py, memory_writes.py, memory_removal.py;
DynamoMemoryStore in memory_store.py is all three): the table, the namespace prefix of every key it writes and
reads, the per-entity counts (entity_counts.py), and the outbox its changes' webhook events go to (outbox.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.attributes import Item, placeholders, text
from mnemo.adapters.dynamodb.codec import key_of
from mnemo.adapters.dynamodb.entity_counts import EntityCounts
from mnemo.adapters.dynamodb.operations import projection
from mnemo.adapters.dynamodb.outbox import OutboxPartition, notify
from mnemo.adapters.dynamodb.schema import BY_NAMESPACE, NAMESPACE_SHARDS
from mnemo.adapters.dynamodb.table_store import TableStore
from mnemo.domain.memory import HistoryEntry, MemoryRecord

if TYPE_CHECKING:  # the webhook events: a table without an outbox (the self-hosted memories) never loads them
    from mnemo.domain.webhooks import OutboundEvent

log = logging.getLogger("mnemo.dynamodb")


class MemoryTable(TableStore):
    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        namespace: str | None = None,
        outbox: bool = False,
        on_outbox: Callable[[], None] | None = None,
    ) -> None:
        """`namespace` (a platform project) prefixes every partition key this store writes and queries, in the
        table and the indexes: it sees only its namespace's items, and the plain store (None) sees no namespaced
        item. `page_size` and `sleep`: see TableStore.

        With `outbox` (a namespace's store only), every insert, replace and remove also puts its webhook events
        (`change_events`, carrying the namespace) into the table's outbox partition in the same transaction as the
        change, and the store is its namespace's ChangeOutbox; `on_outbox` is called after each write that put
        some (a wake-up for whoever publishes them; its errors are logged, never raised into the write)."""
        if outbox and namespace is None:
            raise ValueError("An outbox belongs to a namespace's store: its events name their project.")
        super().__init__(client, table_name, page_size=page_size, sleep=sleep)
        self.namespace = namespace
        self._ns = "" if namespace is None else it.namespace_prefix(namespace)
        self._entities = EntityCounts(self._ops, self._ns)
        self._outbox = (
            OutboxPartition(self._ops, it.OUTBOX_PK, namespace=namespace, order=self._seq) if outbox else None
        )
        self._on_outbox = on_outbox

    # ---- this store's items, and no other's ---------------------------------------------------------

    def _own(self, request: dict[str, Any], condition: str | None = None) -> dict[str, Any]:
        """A Scan request restricted to this store's items (a namespace's prefix, or no namespace's), and
        `condition` if given: table-wide maintenance (scan, clear, rebuild) never crosses namespaces."""
        mine = "begins_with(pk, :ns)" if self._ns else "NOT begins_with(pk, :ns) AND pk <> :outbox"
        request = {**request, "ExpressionAttributeValues": {**request.get("ExpressionAttributeValues", {})}}
        request["ExpressionAttributeValues"] |= placeholders(ns=self._ns or it.NAMESPACE_MARK)
        if not self._ns:
            request["ExpressionAttributeValues"] |= placeholders(outbox=it.OUTBOX_PK)
        request["FilterExpression"] = mine if condition is None else f"({condition}) AND {mine}"
        return request

    def _items_of_kind(self, kind: str, names: Sequence[str]) -> Iterator[Item]:
        """Every item whose sort key is `kind` (memories, entity counts), with the attributes `names`: a
        namespace's through its by_namespace keys, the plain store's by a consistent table scan."""
        if self._ns:
            keys = [k for k in self._namespace_keys() if text(k, "sk") == kind]
            for start in range(0, len(keys), 1000):
                yield from self._ops.batch_get(keys[start : start + 1000], names)
            return
        request = projection(names)
        request["ExpressionAttributeNames"]["#kind"] = "sk"
        request["ExpressionAttributeValues"] = placeholders(kind=kind)
        yield from self._ops.items("scan", ConsistentRead=True, **self._own(request, "#kind = :kind"))

    def _namespace_keys(self) -> Iterator[Item]:
        """The keys of every item of this namespace, from the by_namespace index (eventually consistent: an item
        written in the last moment may be missing; none of another namespace can be there)."""
        for shard in range(NAMESPACE_SHARDS):
            for item in self._ops.items(
                "query",
                IndexName=BY_NAMESPACE,
                KeyConditionExpression="ns_pk = :p",
                ExpressionAttributeValues=placeholders(p=it.namespace_partition(shard, self._ns)),
            ):
                yield key_of(item)

    # ---- the outbox (outbox.py) ---------------------------------------------------------------------

    def _event_puts(
        self, records: Sequence[MemoryRecord], history: Sequence[HistoryEntry], before: Mapping[str, MemoryRecord]
    ) -> list[dict[str, Any]]:
        """The transaction's puts of these changes' webhook events (none without an outbox)."""
        if self._outbox is None:
            return []
        from mnemo.domain.webhooks import change_events

        return [self._outbox.put(event) for event in change_events(records, history, before)]

    def _is_event(self, action: dict[str, Any]) -> bool:
        return self._outbox is not None and self._outbox.holds(action)

    def _notify(self, wrote: bool) -> None:
        if wrote:
            notify(self._on_outbox, log, f"namespace {self.namespace}")

    def pending(self, limit: int) -> list[OutboundEvent]:
        """The oldest unpublished events of this namespace, oldest first (none without an outbox)."""
        return [] if self._outbox is None else self._outbox.pending(limit)

    def published(self, event_ids: Sequence[str]) -> None:
        if self._outbox is not None:
            self._outbox.published(event_ids)
