"""The composition root of the platform surface on the embedded backend: tenancy records in the main SQLite
file, one SQLite file per project namespace under `<data dir>/namespaces/`, and the in-process add worker."""

from __future__ import annotations

from mnemo.adapters.inprocess.queue import InProcessQueue
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.services.configuration import ConfigurationService
from mnemo.services.platform.memories import AddWorker, ProjectMemories
from mnemo.services.platform.reports import Reports
from mnemo.services.platform.services import PlatformServices
from mnemo.services.platform.tenancy import TenancyService
from mnemo.services.ranking import RankingWeights
from mnemo.settings import Settings


def build_local_platform(
    settings: Settings, database: Database, configuration: ConfigurationService, *, start_worker: bool = True
) -> PlatformServices:
    weights = RankingWeights(semantic=settings.semantic_weight, keyword=settings.keyword_weight)
    namespaces = SqliteMemoryNamespaces(settings.data_dir / "namespaces", configuration.providers, weights)
    store = SqliteTenancyStore(database)
    memories = ProjectMemories(namespaces, store)
    worker = AddWorker(memories, InProcessQueue())
    platform = PlatformServices(
        tenancy=TenancyService(store, namespaces.drop),
        memories=memories,
        reports=Reports(memories, store),
        namespaces=namespaces,
        worker=worker,
    )
    previous = configuration.on_embedder_change

    def reembed_everything() -> int:
        if previous is not None:
            previous()
        return namespaces.reembed_all()

    configuration.on_embedder_change = reembed_everything
    if start_worker:
        worker.start()
    return platform
