"""The composition root of the platform surface. Embedded backend: tenancy records in the main SQLite file, one
SQLite file per project namespace under `<data dir>/namespaces/`, and the in-process add worker. AWS backend:
tenancy records in the accounts table, each project's memories under its key prefix in the memories table and
in its own OpenSearch index, asynchronous adds queued to SQS for the ingest worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mnemo.adapters.inprocess.queue import InProcessQueue
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.ports.queue import MessageQueue
from mnemo.ports.tenancy_store import TenancyStore
from mnemo.services.configuration import ConfigurationService
from mnemo.services.platform.jobs import queue_enqueuer
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
    _reembed_namespaces_too(configuration, namespaces)
    if start_worker:
        worker.start()
    return platform


def build_aws_platform(
    settings: Settings,
    dynamodb: Any,
    index_for: Callable[[str], MemoryIndex],
    configuration: ConfigurationService,
    queue: MessageQueue | None,
) -> PlatformServices:
    """No worker thread (Lambda freezes between calls): an asynchronous add is queued to SQS and the ingest
    worker runs it (mnemo.services.platform.jobs). Without a queue it runs as it is submitted."""
    from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces
    from mnemo.adapters.dynamodb.tenancy import DynamoTenancyStore

    weights = RankingWeights(semantic=settings.semantic_weight, keyword=settings.keyword_weight)
    namespaces = AwsMemoryNamespaces(dynamodb, settings.dynamodb_table, index_for, configuration.providers, weights)
    store = DynamoTenancyStore(dynamodb, settings.accounts_table)
    memories = ProjectMemories(namespaces, store)
    if queue is not None:
        memories.enqueue = queue_enqueuer(queue)
    else:

        def run_now(project_id: str, event_id: str, _owner: str) -> None:
            memories.process(project_id, event_id)

        memories.enqueue = run_now
    platform = PlatformServices(
        tenancy=TenancyService(store, namespaces.drop),
        memories=memories,
        reports=Reports(memories, store),
        namespaces=namespaces,
    )
    _reembed_namespaces_too(configuration, namespaces)
    return platform


def _reembed_namespaces_too(configuration: ConfigurationService, namespaces: MemoryNamespaces) -> None:
    previous = configuration.on_embedder_change

    def reembed_everything() -> int:
        if previous is not None:
            previous()
        return namespaces.reembed_all()

    configuration.on_embedder_change = reembed_everything


@contextmanager
def open_tenancy_store(settings: Settings, session: Any | None = None) -> Iterator[TenancyStore]:
    """The tenancy records alone (what `mnemo platform bootstrap` writes): the SQLite file of the data dir, or the
    accounts table on the AWS backend (`session`: a boto3 session, default the SDK's credential chain)."""
    if settings.backend == "aws":
        import boto3

        from mnemo.adapters.dynamodb.tenancy import DynamoTenancyStore

        session = session or boto3.Session(region_name=settings.aws_region)
        yield DynamoTenancyStore(session.client("dynamodb"), settings.accounts_table)
        return
    database = Database(settings.database_path)
    try:
        yield SqliteTenancyStore(database)
    finally:
        database.close()
