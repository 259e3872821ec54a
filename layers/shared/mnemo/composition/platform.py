"""The platform surface. Embedded backend: tenancy records in the main SQLite file, one SQLite file per project
namespace under `<data dir>/namespaces/`, and the in-process add worker. AWS backend: tenancy records in the
accounts table, each project's memories under its key prefix in the memories table and in its own OpenSearch
index, asynchronous adds queued to SQS for the ingest worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mnemo.adapters.inprocess.queue import InProcessQueue
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.composition.services import ranking_weights
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.ports.queue import MessageQueue
from mnemo.ports.tenancy_store import TenancyStore
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.add_jobs import AddJobs
from mnemo.services.platform.add_worker import AddWorker
from mnemo.services.platform.entities import ProjectEntityService
from mnemo.services.platform.events import EventService
from mnemo.services.platform.jobs import JobService, queue_enqueuer
from mnemo.services.platform.project_memory import ProjectMemoryService
from mnemo.services.platform.reports import ReportService
from mnemo.services.platform.services import PlatformServices
from mnemo.services.platform.tenancy import TenancyService
from mnemo.services.providers import ActiveProviders
from mnemo.settings import Settings


def platform_services(
    settings: Settings, storage: MemoryNamespaces, store: TenancyStore, providers: ActiveProviders
) -> PlatformServices:
    """The platform's services over a backend's namespaces and tenancy store (an asynchronous add runs as it is
    submitted until a queue is wired to AddJobs.enqueue)."""
    namespaces = NamespaceMemoryServices(storage, providers, ranking_weights(settings))
    events = EventService(store)
    adds = AddJobs(namespaces, store, store, store)
    return PlatformServices(
        tenancy=TenancyService(store, namespaces.drop),
        project_memory=ProjectMemoryService(namespaces, adds, events, store),
        events=events,
        entities=ProjectEntityService(namespaces, store, events),
        reports=ReportService(namespaces, store),
        adds=adds,
        jobs=JobService(adds, max_attempts=settings.job_attempts),
        namespaces=namespaces,
    )


def build_local_platform(
    settings: Settings, database: Database, providers: ActiveProviders, *, start_worker: bool = True
) -> PlatformServices:
    store = SqliteTenancyStore(database)
    platform = platform_services(settings, SqliteMemoryNamespaces(settings.data_dir / "namespaces"), store, providers)
    platform.worker = AddWorker(platform.adds, store, InProcessQueue())
    if start_worker:
        platform.worker.start()
    return platform


def build_aws_platform(
    settings: Settings,
    dynamodb: Any,
    index_for: Callable[[str], MemoryIndex],
    providers: ActiveProviders,
    queue: MessageQueue | None,
) -> PlatformServices:
    """No worker thread (Lambda freezes between calls): an asynchronous add is queued to SQS and the ingest
    worker runs it (mnemo.services.platform.jobs). Without a queue it runs as it is submitted."""
    from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces
    from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore

    storage = AwsMemoryNamespaces(dynamodb, settings.dynamodb_table, index_for)
    platform = platform_services(settings, storage, DynamoTenancyStore(dynamodb, settings.accounts_table), providers)
    if queue is not None:
        platform.adds.enqueue = queue_enqueuer(queue)
    return platform


@contextmanager
def open_tenancy_store(settings: Settings, session: Any | None = None) -> Iterator[TenancyStore]:
    """The tenancy records alone (what `mnemo platform bootstrap` writes): the SQLite file of the data dir, or the
    accounts table on the AWS backend (`session`: a boto3 session, default the SDK's credential chain)."""
    if settings.backend == "aws":
        import boto3

        from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore

        session = session or boto3.Session(region_name=settings.aws_region)
        yield DynamoTenancyStore(session.client("dynamodb"), settings.accounts_table)
        return
    database = Database(settings.database_path)
    try:
        yield SqliteTenancyStore(database)
    finally:
        database.close()
