"""One SQLite file as memory storage: its record store, and its search index loaded from the records."""

from __future__ import annotations

from collections.abc import Callable

from mnemo.adapters.sqlite.access_log import SqliteAccessLog
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.ports.memory_namespaces import NamespaceStorage
from mnemo.ports.memory_store import indexed_batches, stored_dimension

DEFAULT_DIMENSION = 384  # an empty store: the index takes its width from the first upsert anyway


def open_storage(
    database: Database,
    *,
    outbox_namespace: str | None = None,
    on_outbox: Callable[[], None] | None = None,
    accesses: bool = False,
) -> NamespaceStorage:
    """The file's store, and its in-memory vector index filled from the stored embeddings (the keyword table,
    in the same file, is rebuilt if it has drifted from the records). With `outbox_namespace`, the store writes
    the webhook events of its changes into the file's outbox, and is the storage's `outbox`. With `accesses`, the
    file also keeps the log of its memories' retrievals (a platform project's: memory decay ranks by it)."""
    store = SqliteMemoryStore(database, outbox_namespace=outbox_namespace, on_outbox=on_outbox)
    dimension = stored_dimension(store)
    index = LocalMemoryIndex(database, dimension or DEFAULT_DIMENSION)
    index.load(indexed_batches(store.scan()), dimension)
    return NamespaceStorage(
        store,
        index,
        dimension,
        outbox=store if outbox_namespace is not None else None,
        accesses=SqliteAccessLog(database) if accesses else None,
    )
