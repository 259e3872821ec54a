"""The composition root: settings in, a container of wired services out. Nothing else builds adapters."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from mnemo.adapters.registry import ProviderRegistry
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.ports.providers import ProviderCatalog
from mnemo.services.configuration import ConfigurationService
from mnemo.services.memory_service import MemoryService, active_batches
from mnemo.services.ranking import RankingWeights
from mnemo.settings import Settings

log = logging.getLogger("mnemo.bootstrap")


def stored_dimension(store: SqliteMemoryStore) -> int | None:
    for _records, vectors in store.scan(1):
        return int(vectors.shape[1])
    return None


@dataclass
class Container:
    settings: Settings
    memories: MemoryService
    configuration: ConfigurationService
    database: Database

    def close(self) -> None:
        self.database.close()


def bootstrap(settings: Settings | None = None, catalog: ProviderCatalog | None = None) -> Container:
    settings = settings or Settings()
    database = Database(settings.database_path)
    store = SqliteMemoryStore(database)
    configuration = ConfigurationService(store, catalog or ProviderRegistry(), settings.default_provider_config())
    embedder = configuration.providers.get().embedder
    index = LocalMemoryIndex(database, embedder.dimension)
    memories = MemoryService(
        store,
        index,
        configuration.providers,
        RankingWeights(semantic=settings.semantic_weight, keyword=settings.keyword_weight),
    )
    configuration.on_embedder_change = memories.reembed_all
    if stored_dimension(store) not in (None, embedder.dimension):
        log.warning("stored embeddings do not match the embedder %s: embedding every memory again", embedder.name)
        memories.reembed_all()
    else:
        index.load(active_batches(store.scan()), embedder.dimension)
    return Container(settings=settings, memories=memories, configuration=configuration, database=database)
