"""Memory namespaces on the AWS backend: every platform project's memories in the shared DynamoDB memories
table under its own key prefix, and in its own OpenSearch index.

- DynamoDB: a namespace's DynamoMemoryStore (`namespace=`) starts every partition key it writes or queries
  (table and indexes) with `NS#<namespace>#`: a get by id, a history read, a dedup claim, a listing of a user
  or of the time shards, an entity count all name the namespace in the key, so no id or filter a caller sends
  can reach another namespace's item. Every item of a namespace also has its entry (`ns_pk`) in the
  by_namespace index (keys only): dropping, re-embedding or recounting a project reads its own keys there, so
  its cost is the project's size, never the table's. Only `stored_namespaces` (all projects) scans the table.
- OpenSearch: one index per namespace, `<MNEMO_OPENSEARCH_INDEX>-<namespace>` (namespaces are lowercase ids,
  as index names must be), created lazily and idempotently on the first upsert as the plain index is. Every
  request of a namespace's index names that index in its path, so no query can match another project's
  documents; dropping a namespace deletes its index. (One index per project is simple and strictly isolated;
  a deployment with many thousands of projects would rather share an index with a `namespace` term filter.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.dynamodb.operations import Operations, projection
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
    ) -> None:
        """`index_for(namespace)` builds the namespace's search index (OpenSearch: `namespace_index_name`)."""
        self._dynamodb = dynamodb
        self._table = table_name
        self._index_for = index_for
        self._page_size = page_size
        self._open: dict[str, NamespaceStorage] = {}
        self._lock = threading.Lock()

    def _store(self, namespace: str) -> DynamoMemoryStore:
        return DynamoMemoryStore(self._dynamodb, self._table, page_size=self._page_size, namespace=namespace)

    def open(self, namespace: str) -> NamespaceStorage:
        """The namespace's store and index; the stored embeddings are not looked at (that would scan)."""
        with self._lock:
            storage = self._open.get(namespace)
            if storage is None:
                storage = NamespaceStorage(self._store(namespace), self._index_for(namespace))
                self._open[namespace] = storage
            return storage

    def drop(self, namespace: str) -> None:
        """Every memory, history entry, claim, entity count and setting of the namespace (found through the
        by_namespace index, never by a table scan), and its search index."""
        self._store(namespace).clear(settings=True)
        self._index_for(namespace).clear()
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

    def close(self) -> None:
        with self._lock:
            self._open.clear()
