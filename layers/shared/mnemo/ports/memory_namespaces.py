"""Memory namespaces: the storage of one tenant (a platform project), isolated by construction.

Opening a namespace gives its record store, its search index and the log of its memories' retrievals, and nothing
else: no query through them can
see another namespace's records, whatever ids or filters it is given. Locally each namespace is its own SQLite
file (records, history and keyword index) with its own vector index; a shared-table backend (DynamoDB,
OpenSearch) follows the same contract by keying every item and document with the namespace and adding it to
every key condition and query. What is built on a namespace's storage (its MemoryService) is the services
layer's business (mnemo.services.namespace_memory).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.ports.memory_access import AccessLog
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_store import MemoryStore


@dataclass(frozen=True, slots=True)
class NamespaceStorage:
    """A namespace's record store and search index. `stored_dimension`: the width of the embeddings found in the
    store when it was opened (None when it holds none, or when the backend does not look: checking would scan).
    `outbox`: where the store writes the webhook events of its changes, when it does (None: it writes none).
    `accesses`: the log of its memories' retrievals, which memory decay ranks by (None: a storage without one,
    such as the self-hosted surface's, which never decays)."""

    store: MemoryStore
    index: MemoryIndex
    stored_dimension: int | None = None
    outbox: ChangeOutbox | None = None
    accesses: AccessLog | None = None
    close: Callable[[], None] | None = None  # called before the storage's files close (the local index's snapshot)


class MemoryNamespaces(Protocol):
    def open(self, namespace: str) -> NamespaceStorage:
        """The storage of `namespace` (created empty on first use); the same object while it stays open."""
        ...

    def drop(self, namespace: str) -> None:
        """Delete every memory, history entry and index entry of the namespace, for good."""
        ...

    def stored_namespaces(self) -> list[str]:
        """Every namespace that holds records, open in this process or not (maintenance: it may scan)."""
        ...

    def close(self) -> None: ...
