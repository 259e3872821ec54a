"""The embedded backend: one SQLite file (memories, settings, accounts, request log, tenancy, webhooks, profiles,
Dream's state) in the data dir, one more per platform project under `<data dir>/namespaces/`, the local embedder,
and the background threads of `mnemo serve`. Everything is built here through its constructor, stores first.

Webhooks: every project's memory store and the tenancy store write their outboxes and wake the webhook worker,
which drains them into deliveries and sends them. Profiles: the relay tells the profile service of each memory
change it drains (which claims a debounced regeneration), and the profile worker runs the generations and jobs."""

from __future__ import annotations

import threading

from mnemo.adapters.inprocess.queue import InProcessQueue
from mnemo.adapters.registry import EmbedBatching, ProviderRegistry
from mnemo.adapters.sqlite.api_key_store import SqliteApiKeyStore
from mnemo.adapters.sqlite.change_log import SettingWatch
from mnemo.adapters.sqlite.console_account_store import SqliteConsoleAccountStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.lease import Lease
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.page_cache import prewarm_in_background
from mnemo.adapters.sqlite.profile_store import SqliteProfileStore
from mnemo.adapters.sqlite.reflection_store import SqliteReflectionStore
from mnemo.adapters.sqlite.refresh_token_store import SqliteRefreshTokenStore
from mnemo.adapters.sqlite.request_log_store import SqliteRequestLogStore
from mnemo.adapters.sqlite.storage import open_storage
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.adapters.sqlite.user_store import SqliteUserStore
from mnemo.adapters.sqlite.webhook_store import SqliteWebhookStore
from mnemo.composition.auth import AccountStores
from mnemo.composition.container_type import Container
from mnemo.composition.platform import PlatformQueues, PlatformStores, build_platform, webhook_sender
from mnemo.composition.secret_box import local_secret_box
from mnemo.composition.shared import core_services, index_tuning, reembed_everything, self_hosted_memory_service
from mnemo.language.en import english
from mnemo.ports.providers import ProviderCatalog
from mnemo.services.configuration import SETTINGS_KEY, ConfigurationService, ConfiguredProviders
from mnemo.services.lazy import Lazy
from mnemo.services.platform.dream.timer import DreamTimer
from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.platform.jobs.add_worker import AddWorker, local_enqueuer
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.platform.profiles.worker import LocalProfileTasks, ProfileWorker
from mnemo.services.platform.webhooks.dispatcher import WebhookDispatcher
from mnemo.services.platform.webhooks.relay import WebhookRelay
from mnemo.services.platform.webhooks.service import WebhookService
from mnemo.services.platform.webhooks.worker import WebhookWorker
from mnemo.services.providers import ActiveProviders
from mnemo.services.request_log import RequestLogService
from mnemo.services.workers import Supervisor, Worker
from mnemo.settings import Settings


def embed_batching(settings: Settings, serves_http: bool) -> EmbedBatching | None:
    """Micro-batching of the embedder's calls where concurrent requests make them: a serving process."""
    if not serves_http or settings.embed_batch_wait_ms <= 0:
        return None
    return EmbedBatching(settings.embed_batch_wait_ms / 1000, settings.embed_batch_max_texts)


def build_local(settings: Settings, catalog: ProviderCatalog | None = None, *, serves_http: bool = True) -> Container:
    database = Database(settings.database_path)
    storage = open_storage(database, tuning=index_tuning(settings), facets=english())
    catalog = catalog or ProviderRegistry(embed_batching(settings, serves_http))
    # Several processes serving the data dir follow a provider change any of them makes (POST /configure).
    shared = settings.http_workers > 1
    changed_elsewhere = SettingWatch(database, SETTINGS_KEY).changed if shared else None
    configured = ConfiguredProviders(
        storage.store,
        catalog,
        settings.default_provider_config(),
        local_secret_box(settings),
        changed_elsewhere=changed_elsewhere,
    )
    memory_service = self_hosted_memory_service(settings, storage, configured.providers)
    stores = AccountStores(SqliteUserStore(database), SqliteApiKeyStore(database), SqliteRefreshTokenStore(database))
    request_log = RequestLogService(SqliteRequestLogStore(database), settings.request_log_retention_days)
    platform, platform_workers = local_platform(settings, database, configured.providers)
    features = Lazy.ready(platform)  # built at once: the workers below need it
    configuration = ConfigurationService(configured, reembed_everything(memory_service, features))
    lease = Lease.taken(settings.data_dir / "background.lock") if shared else None
    core = core_services(settings, memory_service, configuration, stores, request_log, serves_http=serves_http)
    # The workers in the order they start (they stop in the reverse order): the writers first, Dream's schedule last.
    workers = Supervisor([request_log, platform.namespaces.access_buffer, platform.retrieval_counts, *platform_workers])
    container = Container(**vars(core), features=features, workers=workers, settings=settings)
    container.closers.append(database.close)
    if storage.close is not None:
        container.closers.append(storage.close)  # closers run last first: the index's snapshot, then the file
    request_log.prune()
    container.tokens.prune()
    if lease is not None:
        container.closers.insert(0, lease.release)  # closers run last first: released once the rest has stopped
    leader = not shared or lease is not None
    if serves_http and leader and settings.prewarm_page_cache:
        prewarm_in_background(settings.data_dir)  # the page cache is the machine's: one process of several asks
    # Last: nothing after it can fail and leave a thread running. One process of several is the leader (it holds the
    # lease): it alone runs the leader-only workers, and queues again what a stop left unfinished.
    workers.start(leader=leader)
    return container


def local_platform(
    settings: Settings, database: Database, providers: ActiveProviders
) -> tuple[PlatformFeatures, list[Worker]]:
    """The platform's stores in the main file and the namespaces' files, its features, and the workers of its jobs,
    webhooks, profiles and Dream's schedule."""
    woken = threading.Event()
    store = SqliteTenancyStore(database, on_outbox=woken.set)
    storage = SqliteMemoryNamespaces(
        settings.data_dir / "namespaces",
        outbox=True,
        on_outbox=woken.set,
        tuning=index_tuning(settings),
        shared=settings.http_workers > 1,  # the relay reads the events other processes write
        facets=english(),
    )
    webhook_store = SqliteWebhookStore(database)
    profile_store = SqliteProfileStore(database)
    stores = PlatformStores(
        store,
        storage,
        SqliteReflectionStore(database),
        webhook_store,
        profile_store,
        SqliteConsoleAccountStore(database),
        purge=database.checkpoint,
    )
    jobs_queue = InProcessQueue()
    profile_tasks = LocalProfileTasks()
    sender = webhook_sender(settings)
    dispatcher = WebhookDispatcher(webhook_store, sender, settings.webhook_retry_schedule)
    webhooks = WebhookService(webhook_store, sender, dispatcher.attempt)
    platform = build_platform(
        settings, stores, PlatformQueues(local_enqueuer(jobs_queue), profile_tasks), providers, webhooks
    )
    platform.closers.append(sender.close)
    profiles = platform.profiles
    assert isinstance(profiles, ProfileService)  # the embedded backend always has them
    relay = WebhookRelay(webhook_store, lambda: [*storage.outboxes(), store], listeners=[profiles.note_changes])
    return platform, [
        AddWorker(platform.router, store, jobs_queue),
        WebhookWorker(relay, dispatcher, woken=woken),
        ProfileWorker(profiles, profile_tasks),
        DreamTimer(platform.dream_scheduler, settings.dream_schedule_seconds),
    ]
