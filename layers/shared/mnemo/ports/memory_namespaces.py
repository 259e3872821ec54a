"""Memory namespaces: one memory engine per tenant (a platform project), isolated by construction.

A namespace's memories, history and index entries are reachable only through the MemoryService the port
hands out for that namespace: no query of one namespace's service can see another's records, whatever ids
or filters it is given. Locally each namespace is its own SQLite file (records, history and keyword index)
with its own vector index; a shared-table backend (DynamoDB, OpenSearch) follows the same contract by
keying every item and document with the namespace and adding it to every key condition and query.
"""

from __future__ import annotations

from typing import Protocol

from mnemo.services.memory_service import MemoryService


class MemoryNamespaces(Protocol):
    def memories(self, namespace: str) -> MemoryService:
        """The memory engine of `namespace` (created empty on first use)."""
        ...

    def drop(self, namespace: str) -> None:
        """Delete every memory, history entry and index entry of the namespace, for good."""
        ...

    def stored_namespaces(self) -> list[str]:
        """Every namespace that holds records, open in this process or not (maintenance: it may scan)."""
        ...

    def reembed_all(self) -> int:
        """Embed every memory of every namespace again (the embedder changed)."""
        ...

    def close(self) -> None: ...
