"""The composition root: settings in, a container of wired services out. Nothing else builds adapters."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from mnemo.adapters.crypto.argon2_passwords import Argon2PasswordHasher
from mnemo.adapters.crypto.jwt_tokens import RECOMMENDED_SECRET_BYTES, JwtTokenCodec
from mnemo.adapters.registry import ProviderRegistry
from mnemo.adapters.sqlite.api_key_store import SqliteApiKeyStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.adapters.sqlite.refresh_token_store import SqliteRefreshTokenStore
from mnemo.adapters.sqlite.request_log_store import SqliteRequestLogStore
from mnemo.adapters.sqlite.user_store import SqliteUserStore
from mnemo.ports.api_key_store import ApiKeyStore
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_store import MemoryStore
from mnemo.ports.providers import ProviderCatalog
from mnemo.ports.publisher import EventPublisher
from mnemo.ports.queue import MessageQueue
from mnemo.ports.refresh_token_store import RefreshTokenStore
from mnemo.ports.request_log_store import RequestLogStore
from mnemo.ports.user_store import UserStore
from mnemo.services.accounts import AccountService
from mnemo.services.api_keys import ApiKeyService
from mnemo.services.authentication import Authenticator
from mnemo.services.configuration import ConfigurationService
from mnemo.services.entities import EntityService
from mnemo.services.ingestion import IngestionService
from mnemo.services.memory_service import MemoryService, active_batches
from mnemo.services.platform.services import PlatformServices
from mnemo.services.ranking import RankingWeights
from mnemo.services.rate_limiter import RateLimiter
from mnemo.services.request_log import RequestLogService
from mnemo.services.tokens import TokenService
from mnemo.settings import Settings

MIN_ADMIN_KEY_LENGTH = 16

log = logging.getLogger("mnemo.bootstrap")


class LazyContainer:
    """The container of one Lambda execution environment: built on the first call (never at import time) and
    kept for the next ones. `build` is what builds it (bootstrap from the environment by default)."""

    def __init__(self, build: Callable[[], Container] | None = None) -> None:
        self.build: Callable[[], Container] = build or bootstrap
        self._built: Container | None = None

    @property
    def built(self) -> bool:
        return self._built is not None

    def get(self) -> Container:
        if self._built is None:
            self._built = self.build()
        return self._built

    def reset(self, build: Callable[[], Container] | None = None) -> None:
        """Close and forget the container (and use `build` for the next one): a new execution environment."""
        if self._built is not None:
            self._built.close()
        self._built = None
        if build is not None:
            self.build = build


def stored_dimension(store: SqliteMemoryStore) -> int | None:
    for _records, vectors in store.scan(1):
        return int(vectors.shape[1])
    return None


@dataclass
class AccountStores:
    users: UserStore
    api_keys: ApiKeyStore
    refresh_tokens: RefreshTokenStore


@dataclass
class Container:
    settings: Settings
    memories: MemoryService
    configuration: ConfigurationService
    database: Database | None  # the SQLite file of the local backend; None on AWS
    accounts: AccountService
    tokens: TokenService
    api_keys: ApiKeyService
    authenticator: Authenticator
    entities: EntityService
    request_log: RequestLogService
    rate_limiter: RateLimiter
    ingestion: IngestionService  # adds queued for the worker
    queue: MessageQueue | None = None  # slow work (SQS on AWS)
    publisher: EventPublisher | None = None  # events to subscribers (SNS on AWS)
    closers: list[Callable[[], None]] = field(default_factory=list)
    platform: PlatformServices | None = None  # the platform surface (/v1, /v2, /v3, /api/v1/orgs)

    def close(self) -> None:
        if self.platform is not None:
            self.platform.close()
        self.request_log.close()
        if self.database is not None:
            self.database.close()
        for close in self.closers:
            close()


def bootstrap(
    settings: Settings | None = None,
    catalog: ProviderCatalog | None = None,
    *,
    index: MemoryIndex | None = None,
    session: Any | None = None,
    serves_http: bool = True,
    namespace_index: Callable[[str], MemoryIndex] | None = None,
) -> Container:
    """The container for `settings.backend`. On AWS, `index` replaces the OpenSearch index and `namespace_index`
    a platform project's own OpenSearch index (tests; the index is derived data), and `session` is the boto3
    session to use (default: the SDK's credential chain). A worker (`serves_http=False`) is not warned about the
    authentication settings, which only the HTTP routes use."""
    settings = settings or Settings()
    if settings.backend == "aws":
        return bootstrap_aws(
            settings, catalog, index=index, session=session, serves_http=serves_http, namespace_index=namespace_index
        )
    database = Database(settings.database_path)
    store = SqliteMemoryStore(database)
    configuration = ConfigurationService(store, catalog or ProviderRegistry(), settings.default_provider_config())
    embedder = configuration.providers.get().embedder
    local_index = LocalMemoryIndex(database, embedder.dimension)
    memories = MemoryService(
        store,
        local_index,
        configuration.providers,
        RankingWeights(semantic=settings.semantic_weight, keyword=settings.keyword_weight),
    )
    configuration.on_embedder_change = memories.reembed_all
    if stored_dimension(store) not in (None, embedder.dimension):
        log.warning("stored embeddings do not match the embedder %s: embedding every memory again", embedder.name)
        memories.reembed_all()
    else:
        local_index.load(active_batches(store.scan()), embedder.dimension)
    stores = AccountStores(SqliteUserStore(database), SqliteApiKeyStore(database), SqliteRefreshTokenStore(database))
    request_log = RequestLogService(SqliteRequestLogStore(database), settings.request_log_retention_days)
    container = assemble(
        settings, store, memories, configuration, database, stores, request_log, serves_http=serves_http
    )
    request_log.prune()
    container.tokens.prune()
    # ---- platform surface (issue 6): tenancy, project namespaces, the add worker ----
    from mnemo.bootstrap_platform import build_local_platform

    container.platform = build_local_platform(settings, database, configuration)
    return container


def bootstrap_aws(
    settings: Settings,
    catalog: ProviderCatalog | None,
    *,
    index: MemoryIndex | None = None,
    session: Any | None = None,
    serves_http: bool = True,
    namespace_index: Callable[[str], MemoryIndex] | None = None,
) -> Container:
    """DynamoDB records, the OpenSearch index, SQS and SNS, secrets from SSM. Nothing is read at start-up but the
    secrets and the provider settings: no index load (OpenSearch keeps it), no pruning (the tables' TTL does it),
    and the request log is written as each request ends (no background thread: Lambda freezes between calls)."""
    import boto3

    from mnemo.adapters.aws.factory import build_aws_adapters
    from mnemo.adapters.aws.parameters import with_secrets
    from mnemo.adapters.dynamodb.accounts import DynamoApiKeyStore, DynamoRefreshTokenStore, DynamoUserStore
    from mnemo.adapters.dynamodb.request_log import DynamoRequestLogStore

    session = session or boto3.Session(region_name=settings.aws_region)
    settings = with_secrets(settings, session.client("ssm"))
    aws = build_aws_adapters(settings, session)
    dynamodb = session.client("dynamodb")
    configuration = ConfigurationService(aws.store, catalog or ProviderRegistry(), settings.default_provider_config())
    memories = MemoryService(
        aws.store,
        index if index is not None else aws.index,
        configuration.providers,
        RankingWeights(semantic=settings.semantic_weight, keyword=settings.keyword_weight),
    )
    configuration.on_embedder_change = memories.reembed_all
    stores = AccountStores(
        DynamoUserStore(dynamodb, settings.accounts_table),
        DynamoApiKeyStore(dynamodb, settings.accounts_table),
        DynamoRefreshTokenStore(dynamodb, settings.accounts_table),
    )
    retention = timedelta(days=settings.request_log_retention_days)
    log_store: RequestLogStore = DynamoRequestLogStore(dynamodb, settings.request_log_table, retention=retention)
    request_log = RequestLogService(log_store, settings.request_log_retention_days, background=False)
    container = assemble(
        settings,
        aws.store,
        memories,
        configuration,
        None,
        stores,
        request_log,
        queue=aws.queue,
        publisher=aws.publisher,
        serves_http=serves_http,
    )
    container.closers.append(aws.close)
    # ---- platform surface (issue 6): tenancy in the accounts table, project namespaces, adds queued to SQS ----
    from mnemo.bootstrap_platform import build_aws_platform

    index_for = namespace_index or aws.namespace_index
    if index_for is not None:
        container.platform = build_aws_platform(settings, dynamodb, index_for, configuration, aws.queue)
    return container


def assemble(
    settings: Settings,
    store: MemoryStore,
    memories: MemoryService,
    configuration: ConfigurationService,
    database: Database | None,
    stores: AccountStores,
    request_log: RequestLogService,
    *,
    queue: MessageQueue | None = None,
    publisher: EventPublisher | None = None,
    serves_http: bool = True,
) -> Container:
    accounts, tokens, api_keys, authenticator = build_auth(settings, stores, warn=serves_http)
    return Container(
        settings=settings,
        memories=memories,
        configuration=configuration,
        database=database,
        accounts=accounts,
        tokens=tokens,
        api_keys=api_keys,
        authenticator=authenticator,
        entities=EntityService(store, memories),
        request_log=request_log,
        rate_limiter=RateLimiter(
            {
                "register": settings.rate_limit_register,
                "login": settings.rate_limit_login,
                "refresh": settings.rate_limit_refresh,
            }
        ),
        ingestion=IngestionService(memories, queue, publisher),
        queue=queue,
        publisher=publisher,
    )


def build_auth(
    settings: Settings, stores: AccountStores, *, warn: bool = True
) -> tuple[AccountService, TokenService, ApiKeyService, Authenticator]:
    users = stores.users
    accounts = AccountService(
        users,
        Argon2PasswordHasher(settings.argon2_time_cost, settings.argon2_memory_kib, settings.argon2_parallelism),
    )
    jwt_secret = settings.secret("jwt_secret")
    tokens = TokenService(
        JwtTokenCodec(jwt_secret) if jwt_secret else None,
        stores.refresh_tokens,
        users,
        access_ttl=timedelta(minutes=settings.access_token_minutes),
        refresh_ttl=timedelta(days=settings.refresh_token_days),
    )
    api_keys = ApiKeyService(stores.api_keys, users)
    accounts.on_user_removed += [api_keys.remove_for_user, tokens.end_all_sessions]
    admin_key = settings.secret("admin_api_key")
    if warn:
        warn_about_auth(settings, jwt_secret, admin_key)
    return (
        accounts,
        tokens,
        api_keys,
        Authenticator(tokens, api_keys, admin_api_key=admin_key, disabled=settings.auth_disabled),
    )


def warn_about_auth(settings: Settings, jwt_secret: str | None, admin_key: str | None) -> None:
    if settings.auth_disabled:
        log.warning(
            "AUTHENTICATION IS DISABLED (AUTH_DISABLED=true): every route is open to anyone who can reach this "
            "server, with admin rights. Use this for local development only."
        )
    elif jwt_secret is None:
        log.error(
            "JWT_SECRET is not set: sign-in, token refresh and the other /auth and /api-keys routes will answer "
            "500 until it is. Set JWT_SECRET (or MNEMO_JWT_SECRET), or start with `mnemo serve`, which generates one."
        )
    if jwt_secret is not None and len(jwt_secret.encode("utf-8")) < RECOMMENDED_SECRET_BYTES:
        log.warning("JWT_SECRET is shorter than %d bytes: use a longer random secret", RECOMMENDED_SECRET_BYTES)
    if admin_key is not None and len(admin_key) < MIN_ADMIN_KEY_LENGTH:
        log.warning("ADMIN_API_KEY is shorter than %d characters: use a longer random key", MIN_ADMIN_KEY_LENGTH)
