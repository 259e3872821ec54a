"""The embedded backend: one SQLite file (memories, settings, accounts, request log, tenancy) in the data dir,
one more per platform project, the local embedder, and the in-process add worker."""

from __future__ import annotations

from mnemo.adapters.registry import EmbedBatching, ProviderRegistry
from mnemo.adapters.sqlite.api_key_store import SqliteApiKeyStore
from mnemo.adapters.sqlite.change_log import SettingWatch
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.lease import Lease
from mnemo.adapters.sqlite.page_cache import prewarm_in_background
from mnemo.adapters.sqlite.refresh_token_store import SqliteRefreshTokenStore
from mnemo.adapters.sqlite.request_log_store import SqliteRequestLogStore
from mnemo.adapters.sqlite.storage import open_storage
from mnemo.adapters.sqlite.user_store import SqliteUserStore
from mnemo.composition.auth import AccountStores
from mnemo.composition.container import Container
from mnemo.composition.platform import build_local_platform
from mnemo.composition.services import assemble, index_tuning, ranking_weights, reranker
from mnemo.ports.providers import ProviderCatalog
from mnemo.services.configuration import SETTINGS_KEY, ConfigurationService
from mnemo.services.namespace_memory import open_memory_service
from mnemo.services.request_log import RequestLogService
from mnemo.settings import Settings


def embed_batching(settings: Settings, serves_http: bool) -> EmbedBatching | None:
    """Micro-batching of the embedder's calls where concurrent requests make them: a serving process."""
    if not serves_http or settings.embed_batch_wait_ms <= 0:
        return None
    return EmbedBatching(settings.embed_batch_wait_ms / 1000, settings.embed_batch_max_texts)


def build_local(settings: Settings, catalog: ProviderCatalog | None = None, *, serves_http: bool = True) -> Container:
    database = Database(settings.database_path)
    storage = open_storage(database, tuning=index_tuning(settings))
    catalog = catalog or ProviderRegistry(embed_batching(settings, serves_http))
    # Several processes serving the data dir follow a provider change any of them makes (POST /configure).
    shared = settings.http_workers > 1
    changed_elsewhere = SettingWatch(database, SETTINGS_KEY).changed if shared else None
    configuration = ConfigurationService(
        storage.store, catalog, settings.default_provider_config(), changed_elsewhere=changed_elsewhere
    )
    memory_service = open_memory_service(
        storage, configuration.providers, ranking_weights(settings), reranker=reranker(settings)
    )
    stores = AccountStores(SqliteUserStore(database), SqliteApiKeyStore(database), SqliteRefreshTokenStore(database))
    request_log = RequestLogService(SqliteRequestLogStore(database), settings.request_log_retention_days)
    platform = build_local_platform(settings, database, configuration.providers, start_worker=False)
    lease = Lease.taken(settings.data_dir / "background.lock") if shared else None
    container = assemble(
        settings, memory_service, configuration, stores, request_log, platform, serves_http=serves_http
    )
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
    # lease): mnemo.services.platform.services.PlatformServices.start_workers.
    platform.start_workers(leader=leader)
    return container
