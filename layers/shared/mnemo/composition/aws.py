"""The AWS backend: DynamoDB records, the OpenSearch index, SQS, secrets from SSM. Nothing is read at start-up but
the secrets and the provider settings: no index load (OpenSearch keeps it), no pruning (the tables' TTL does it),
and the request log is written as each request ends (no background thread: Lambda freezes between calls)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from mnemo.adapters.registry import ProviderRegistry
from mnemo.composition.auth import AccountStores
from mnemo.composition.container import Container
from mnemo.composition.platform import build_aws_platform
from mnemo.composition.services import assemble, ranking_weights
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import NamespaceStorage
from mnemo.ports.providers import ProviderCatalog
from mnemo.services.configuration import ConfigurationService
from mnemo.services.namespace_memory import open_memory_service
from mnemo.services.request_log import RequestLogService
from mnemo.settings import Settings


def build_aws(
    settings: Settings,
    catalog: ProviderCatalog | None,
    *,
    index: MemoryIndex | None = None,
    session: Any | None = None,
    serves_http: bool = True,
    namespace_index: Callable[[str], MemoryIndex] | None = None,
) -> Container:
    import boto3

    from mnemo.adapters.dynamodb.api_key_store import DynamoApiKeyStore
    from mnemo.adapters.dynamodb.refresh_token_store import DynamoRefreshTokenStore
    from mnemo.adapters.dynamodb.request_log_store import DynamoRequestLogStore
    from mnemo.adapters.dynamodb.user_store import DynamoUserStore
    from mnemo.composition.aws_adapters import build_aws_adapters
    from mnemo.composition.secrets import with_secrets

    session = session or boto3.Session(region_name=settings.aws_region)
    settings = with_secrets(settings, session.client("ssm"))
    aws = build_aws_adapters(settings, session)
    dynamodb = session.client("dynamodb")
    configuration = ConfigurationService(aws.store, catalog or ProviderRegistry(), settings.default_provider_config())
    storage = NamespaceStorage(aws.store, index if index is not None else aws.index)
    memory_service = open_memory_service(storage, configuration.providers, ranking_weights(settings))
    stores = AccountStores(
        DynamoUserStore(dynamodb, settings.accounts_table),
        DynamoApiKeyStore(dynamodb, settings.accounts_table),
        DynamoRefreshTokenStore(dynamodb, settings.accounts_table),
    )
    retention = timedelta(days=settings.request_log_retention_days)
    log_store = DynamoRequestLogStore(dynamodb, settings.request_log_table, retention=retention)
    request_log = RequestLogService(log_store, settings.request_log_retention_days, background=False)
    index_for = namespace_index or aws.namespace_index
    platform = (
        build_aws_platform(settings, dynamodb, index_for, configuration.providers, aws.queue)
        if index_for is not None
        else None
    )
    container = assemble(
        settings, memory_service, configuration, stores, request_log, platform, serves_http=serves_http
    )
    container.closers.append(aws.close)
    return container
