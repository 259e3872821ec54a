"""The AWS backend: DynamoDB records, the OpenSearch index, SQS, SNS, secrets from SSM. Nothing is read at start-up
but the secrets and the provider settings: no index load (OpenSearch keeps it), no pruning (the tables' TTL does
it), the request log is written as each request ends, and no worker runs (Lambda freezes between calls: the ingest,
webhook delivery and Dream scheduler functions do that work). Everything is built here through its constructor,
stores first. The webhook delivery and Dream scheduler functions have their own, smaller compositions
(aws_functions.py).

The platform's features (composition/aws_platform.py) are built on their first use: a function serving only the
self-hosted routes never imports or builds them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from mnemo.adapters.registry import ProviderRegistry
from mnemo.composition.auth import AccountStores
from mnemo.composition.container_type import Container
from mnemo.composition.shared import core_services, reembed_everything, self_hosted_memory_service
from mnemo.errors import ConfigurationError
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import NamespaceStorage
from mnemo.ports.providers import ProviderCatalog
from mnemo.services.configuration import ConfigurationService, ConfiguredProviders
from mnemo.services.lazy import Lazy
from mnemo.services.request_log import RequestLogService
from mnemo.services.workers import Supervisor
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.services.platform.features import PlatformFeatures


def build_aws(
    settings: Settings,
    catalog: ProviderCatalog | None,
    *,
    index: MemoryIndex | None = None,
    session: Any | None = None,
    serves_http: bool = True,
    namespace_index: Callable[[str], MemoryIndex] | None = None,
) -> Container:
    from mnemo.adapters.dynamodb.api_key_store import DynamoApiKeyStore
    from mnemo.adapters.dynamodb.refresh_token_store import DynamoRefreshTokenStore
    from mnemo.adapters.dynamodb.request_log_store import DynamoRequestLogStore
    from mnemo.adapters.dynamodb.user_store import DynamoUserStore
    from mnemo.composition.aws_adapters import build_aws_adapters
    from mnemo.composition.aws_session import aws_session
    from mnemo.composition.secret_box import aws_secret_box
    from mnemo.composition.secrets import with_secrets

    session = session or aws_session(settings.aws_region)
    settings = with_secrets(settings, session.client("ssm"))
    aws = build_aws_adapters(settings, session)
    dynamodb = session.client("dynamodb")
    configured = ConfiguredProviders(
        aws.store, catalog or ProviderRegistry(), settings.default_provider_config(), aws_secret_box(settings)
    )
    storage = NamespaceStorage(aws.store, index if index is not None else aws.index)
    memory_service = self_hosted_memory_service(settings, storage, configured.providers)
    stores = AccountStores(
        DynamoUserStore(dynamodb, settings.accounts_table),
        DynamoApiKeyStore(dynamodb, settings.accounts_table),
        DynamoRefreshTokenStore(dynamodb, settings.accounts_table),
    )
    retention = timedelta(days=settings.request_log_retention_days)
    log_store = DynamoRequestLogStore(dynamodb, settings.request_log_table, retention=retention)
    request_log = RequestLogService(log_store, settings.request_log_retention_days)  # no writer: written at once
    index_for = namespace_index or aws.namespace_index
    if index_for is None:
        raise ConfigurationError("The AWS backend needs the platform projects' OpenSearch indexes.")
    providers = configured.providers

    def platform() -> PlatformFeatures:
        from mnemo.composition.aws_platform import aws_platform

        return aws_platform(settings, dynamodb, aws, index_for, providers)

    features = Lazy(platform)
    configuration = ConfigurationService(configured, reembed_everything(memory_service, features))
    core = core_services(settings, memory_service, configuration, stores, request_log, serves_http=serves_http)
    container = Container(**vars(core), features=features, workers=Supervisor(), settings=settings)
    container.closers.append(aws.close)
    return container
