"""One SQLite file as memory storage: its record store, and its search index loaded from the records."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mnemo.adapters.sqlite.access_log import SqliteAccessLog
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import IndexTuning, LocalMemoryIndex
from mnemo.adapters.sqlite.memory_index.row_documents import Doc, DocumentSource
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.ports.facets import FacetReader, IndexWords
from mnemo.ports.memory_namespaces import NamespaceStorage
from mnemo.ports.memory_store import indexed_batches, stored_dimension

DEFAULT_DIMENSION = 384  # an empty store: the index takes its width from the first upsert anyway


def open_storage(
    database: Database,
    *,
    outbox_namespace: str | None = None,
    on_outbox: Callable[[], None] | None = None,
    accesses: bool = False,
    tuning: IndexTuning | None = None,
    facets: IndexWords,
) -> NamespaceStorage:
    """The file's store, and its in-memory vector index: from the snapshot its last close wrote when it matches the
    file, else filled from the stored embeddings (the keyword table, in the same file, repaired where it has drifted
    from the records); the storage's `close` writes the snapshot again. With `outbox_namespace`, the store writes
    the webhook events of its changes into the file's outbox, and is the storage's `outbox`. With `accesses`, the
    file also keeps the log of its memories' retrievals (a platform project's: memory decay ranks by it). `tuning`: when
    the index searches approximately (mnemo.settings). `facets`: what reads the facets of a memory
    (a language pack, given by the composition root)."""
    store = SqliteMemoryStore(database, outbox_namespace=outbox_namespace, on_outbox=on_outbox)
    dimension = stored_dimension(store)
    index = LocalMemoryIndex(
        database,
        dimension or DEFAULT_DIMENSION,
        facets=facets,
        documents=_documents_of(store, facets),
        vectors=store.embeddings,
        tuning=tuning,
        snapshot=snapshot_path(database),
        records=store,  # what another process's change to the index is read from
    )
    index.load(indexed_batches(store.scan()), dimension)
    return NamespaceStorage(
        store,
        index,
        dimension,
        outbox=store if outbox_namespace is not None else None,
        accesses=SqliteAccessLog(database) if accesses else None,
        close=index.close,
    )


def snapshot_path(database: Database) -> Path:
    """Where the index of this file keeps its snapshot between runs
    (mnemo.adapters.sqlite.memory_index.snapshot_files)."""
    return Path(f"{database.path}.index")


def _documents_of(store: SqliteMemoryStore, facets: FacetReader) -> DocumentSource:
    """A memory's index document read from the store (its record cache first): what the index checks a filter on a
    field it does not keep in memory against."""

    def document(memory_id: str) -> Doc | None:
        record = store.get(memory_id)
        return record.index_document(facets.facets(record.text)) if record is not None else None

    return document
