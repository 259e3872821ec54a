"""Wiring for maintenance commands (`mnemo reindex`): the configured record store and search index, opened
without the HTTP container. Local: the SQLite store and the SQLite keyword table (stop `mnemo serve` first:
it keeps the index's row map in memory). AWS: DynamoDB and OpenSearch, as the Lambda functions use them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_store import MemoryStore, stored_dimension
from mnemo.services.reindex import Progress, rebuild_index
from mnemo.settings import Settings


@dataclass
class Backends:
    store: MemoryStore
    index: MemoryIndex
    close: Callable[[], None]
    refresh_aggregates: Callable[[], int] | None = None  # recomputes derived counts in the store, if it keeps any


def open_backends(settings: Settings) -> Backends:
    if settings.backend == "aws":
        from mnemo.composition.aws_adapters import build_aws_adapters

        aws = build_aws_adapters(settings)
        return Backends(aws.store, aws.index, aws.close, aws.store.rebuild_entity_counts)
    from mnemo.adapters.sqlite.database import Database
    from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
    from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
    from mnemo.adapters.sqlite.storage import DEFAULT_DIMENSION
    from mnemo.language.en import english

    database = Database(settings.database_path)
    store = SqliteMemoryStore(database)
    index = LocalMemoryIndex(database, stored_dimension(store) or DEFAULT_DIMENSION, facets=english())
    return Backends(store, index, database.close)


@dataclass(frozen=True)
class ReindexReport:
    memories: int
    entities: int | None  # entity aggregates recomputed (stores that keep them), else None


def reindex(
    settings: Settings,
    *,
    batch_size: int = 500,
    progress: Progress | None = None,
    opener: Callable[[Settings], Backends] = open_backends,
) -> ReindexReport:
    backends = opener(settings)
    try:
        memories = rebuild_index(backends.store, backends.index, batch_size=batch_size, progress=progress)
        entities = backends.refresh_aggregates() if backends.refresh_aggregates is not None else None
    finally:
        backends.close()
    return ReindexReport(memories, entities)
