"""Wiring for maintenance commands (`mnemo reindex`): the configured record store and search index, opened
without the HTTP container. Local: the SQLite store and the SQLite keyword table (stop `mnemo serve` first:
it keeps the index's row map in memory). AWS: DynamoDB and OpenSearch, as the Lambda functions use them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_store import MemoryStore
from mnemo.services.reindex import Progress, rebuild_index
from mnemo.settings import Settings

DEFAULT_DIMENSION = 384  # an empty local store: the index takes its width from the first upsert anyway


@dataclass
class Backends:
    store: MemoryStore
    index: MemoryIndex
    close: Callable[[], None]
    refresh_aggregates: Callable[[], int] | None = None  # recomputes derived counts in the store, if it keeps any


def open_backends(settings: Settings) -> Backends:
    if settings.backend == "aws":
        from mnemo.adapters.aws.factory import build_aws_adapters

        aws = build_aws_adapters(settings)
        return Backends(aws.store, aws.index, aws.close, aws.store.rebuild_entity_counts)
    from mnemo.adapters.sqlite.database import Database
    from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
    from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore

    database = Database(settings.database_path)
    store = SqliteMemoryStore(database)
    dimension = next((int(vectors.shape[1]) for _, vectors in store.scan(1)), DEFAULT_DIMENSION)
    return Backends(store, LocalMemoryIndex(database, dimension), database.close)


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


class ProgressBar:
    """A one-line text bar, redrawn in place: `reindex [#########.........] 1500/4500`."""

    def __init__(self, stream: TextIO, *, label: str = "reindex", width: int = 30) -> None:
        self._stream = stream
        self._label = label
        self._width = width

    def __call__(self, done: int, total: int) -> None:
        filled = self._width if total <= 0 else min(self._width, self._width * done // total)
        bar = "#" * filled + "." * (self._width - filled)
        self._stream.write(f"\r{self._label} [{bar}] {done}/{total}")
        if done >= total:
            self._stream.write("\n")
        self._stream.flush()
