"""Memory namespaces on the AWS backend: every platform project's memories in the shared DynamoDB memories
table under its own key prefix, and in its own OpenSearch index.

- DynamoDB: a namespace's DynamoMemoryStore (`namespace=`) starts every partition key it writes or queries
  (table and indexes) with `NS#<namespace>#`: a get by id, a history read, a dedup claim, a listing of a user
  or of the time shards, an entity count all name the namespace in the key, so no id or filter a caller sends
  can reach another namespace's item. Every item of a namespace also has its entry (`ns_pk`) in the
  by_namespace index (keys only): dropping, re-embedding or recounting a project reads its own keys there, so
  its cost is the project's size, never the table's. Only `stored_namespaces` (all projects) scans the table.
- Access log (memory decay): one item per retrieved memory in the memory's own partition
  (mnemo.adapters.dynamodb.access_log), with its `ns_pk`: a drop deletes it with the rest.
- OpenSearch: one index per namespace, `<MNEMO_OPENSEARCH_INDEX>-<namespace>` (namespaces are lowercase ids,
  as index names must be), created lazily and idempotently on the first upsert as the plain index is. Every
  request of a namespace's index names that index in its path, so no query can match another project's
  documents; dropping a namespace deletes its index. (One index per project is simple and strictly isolated;
  a deployment with many thousands of projects would rather share an index with a `namespace` term filter.)
- Webhooks: with `outbox`, each namespace's store puts the webhook events of its changes into the memories table's
  one outbox partition, in the same transaction as each change (mnemo.adapters.dynamodb.outbox), and calls
  `on_outbox` after; `outboxes()` is that partition, every namespace's events in one ChangeOutbox.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.access_log import DynamoAccessLog
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.dynamodb.operations import Operations, projection
from mnemo.adapters.dynamodb.outbox import memories_outbox
from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import NamespaceStorage


def namespace_index_name(base: str, namespace: str) -> str:
    """The OpenSearch index of a namespace: `<base>-<namespace>` (the namespace is checked as for DynamoDB)."""
    it.namespace_prefix(namespace)  # raises ValueError on anything but [a-z0-9_-]{1,64}
    return f"{base}-{namespace}"


class AwsMemoryNamespaces:
    def __init__(
        self,
        dynamodb: Any,
        table_name: str,
        index_for: Callable[[str], MemoryIndex],
        *,
        page_size: int | None = None,
        outbox: bool = False,
        on_outbox: Callable[[], None] | None = None,
    ) -> None:
        """`index_for(namespace)` builds the namespace's search index (OpenSearch: `namespace_index_name`). With
        `outbox`, the stores write their changes' webhook events (and call `on_outbox` after each write that did)."""
        self._dynamodb = dynamodb
        self._table = table_name
        self._index_for = index_for
        self._page_size = page_size
        self._on_outbox = on_outbox
        self._open: dict[str, NamespaceStorage] = {}
        self._lock = threading.Lock()
        self._outbox = memories_outbox(dynamodb, table_name, page_size=page_size) if outbox else None

    def _store(self, namespace: str) -> DynamoMemoryStore:
        return DynamoMemoryStore(
            self._dynamodb,
            self._table,
            page_size=self._page_size,
            namespace=namespace,
            outbox=self._outbox is not None,
            on_outbox=self._on_outbox,
        )

    def open(self, namespace: str) -> NamespaceStorage:
        """The namespace's store and index; the stored embeddings are not looked at (that would scan)."""
        with self._lock:
            storage = self._open.get(namespace)
            if storage is None:
                store = self._store(namespace)
                outbox = store if self._outbox is not None else None
                accesses = DynamoAccessLog(self._dynamodb, self._table, namespace=namespace, page_size=self._page_size)
                storage = NamespaceStorage(store, self._index_for(namespace), outbox=outbox, accesses=accesses)
                self._open[namespace] = storage
            return storage

    def drop(self, namespace: str) -> None:
        """Every memory, history entry, claim, entity count, access log item and setting of the namespace (found
        through the by_namespace index, never by a table scan), and its search index."""
        self._store(namespace).clear(settings=True)
        index = self._index_for(namespace)
        index.clear()
        index.purge()
        with self._lock:
            self._open.pop(namespace, None)

    def stored_namespaces(self) -> list[str]:
        """The namespaces that hold memories (a table scan filtered to namespaced memory items: maintenance)."""
        ops = Operations(self._dynamodb, self._table, page_size=self._page_size)
        request = projection(["pk"])
        request["ExpressionAttributeNames"]["#kind"] = "sk"
        request["ExpressionAttributeValues"] = {":mem": {"S": it.MEMORY_SK}, ":ns": {"S": it.NAMESPACE_MARK}}
        request["FilterExpression"] = "#kind = :mem AND begins_with(#p0, :ns)"
        found = {item["pk"]["S"].split("#", 2)[1] for item in ops.items("scan", **request)}
        return sorted(found)

    def outboxes(self) -> Sequence[ChangeOutbox]:
        """The memories table's outbox (every namespace's pending events, oldest first), or none without outboxes."""
        return [] if self._outbox is None else [self._outbox]

    def close(self) -> None:
        with self._lock:
            self._open.clear()
