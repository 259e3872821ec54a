"""The AWS backend: DynamoDB records, the OpenSearch index, SQS, SNS, secrets from SSM. Nothing is read at start-up
but the secrets and the provider settings: no index load (OpenSearch keeps it), no pruning (the tables' TTL does
it), and the request log is written as each request ends (no background thread: Lambda freezes between calls).

`build_aws_webhook_delivery` is the webhook delivery function's own, smaller composition: the webhook store, the
sender, the outboxes and the topic, no provider, index or secret. `build_aws_dream_scheduler` is the Dream scheduler
function's: the tenancy and reflection stores, the memories table's entity counts, and the ingest queue."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from mnemo.adapters.registry import ProviderRegistry
from mnemo.composition.auth import AccountStores
from mnemo.composition.container import Container
from mnemo.composition.platform import aws_webhooks, build_aws_platform, dream_policy
from mnemo.composition.services import assemble, ranking_weights, reranker
from mnemo.domain.entities import EntityCount
from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import NamespaceStorage
from mnemo.ports.providers import ProviderCatalog
from mnemo.services.configuration import ConfigurationService, names_an_llm
from mnemo.services.namespace_memory import open_memory_service
from mnemo.services.platform.dream.runs import submit_run
from mnemo.services.platform.dream.schedule import DreamScheduler
from mnemo.services.platform.jobs.queue_messages import queue_enqueuer
from mnemo.services.platform.profiles.changes import ProfileChanges
from mnemo.services.request_log import RequestLogService
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.services.platform.webhooks.queue_delivery import WebhookDelivery

MARGIN_SECONDS = 5.0  # beyond an attempt's timeout, what an invocation keeps in hand before it stops attempting


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
    memory_service = open_memory_service(
        storage, configuration.providers, ranking_weights(settings), reranker=reranker(settings)
    )
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
        build_aws_platform(
            settings,
            dynamodb,
            index_for,
            configuration.providers,
            aws.queue,
            publisher=aws.publisher,
            profile_queue=aws.profile_queue,
        )
        if index_for is not None
        else None
    )
    container = assemble(
        settings, memory_service, configuration, stores, request_log, platform, serves_http=serves_http
    )
    container.closers.append(aws.close)
    return container


@dataclass
class WebhookDeliveryRuntime:
    """What the webhook delivery function runs with (built on its first invocation, kept for the next ones)."""

    delivery: WebhookDelivery
    settings: Settings
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for close in reversed(self.closers):
            close()


def profile_changes(settings: Settings, dynamodb: Any, sqs: Any) -> ProfileChanges:
    """The staleness of profiles, as the delivery function notes it: the profile store in the accounts table, and
    the profile queue (`settings.profile_queue_url`) for the generations."""
    from mnemo.adapters.aws.profile_tasks import SqsProfileTasks
    from mnemo.adapters.aws.queue import SqsQueue
    from mnemo.adapters.dynamodb.profile_store import DynamoProfileStore

    assert settings.profile_queue_url is not None
    tasks = SqsProfileTasks(SqsQueue(sqs, settings.profile_queue_url))
    store = DynamoProfileStore(dynamodb, settings.accounts_table)
    return ProfileChanges(store, tasks.dispatch, settings.profile_debounce_seconds)


def build_aws_webhook_delivery(
    settings: Settings | None = None, *, session: Any | None = None
) -> WebhookDeliveryRuntime:
    """The webhook store and sender, the outboxes of both tables drained to the SNS topic, and the delivery queue
    for retries (MNEMO_WEBHOOK_QUEUE_URL; without it the schedule alone retries). With the profile queue
    (MNEMO_PROFILE_QUEUE_URL), every memory change received claims a debounced generation of its user's profile."""
    import boto3
    from botocore.config import Config

    from mnemo.adapters.aws.publisher import SnsPublisher
    from mnemo.adapters.aws.queue import SqsQueue
    from mnemo.adapters.dynamodb.outbox import memories_outbox
    from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
    from mnemo.errors import ConfigurationError
    from mnemo.services.platform.webhooks.queue_delivery import WebhookDelivery

    settings = settings or Settings()
    if not settings.topic_arn:
        raise ConfigurationError("The webhook delivery function needs MNEMO_TOPIC_ARN (the events topic).")
    session = session or boto3.Session(region_name=settings.aws_region)
    config = Config(
        region_name=settings.aws_region or session.region_name, retries={"mode": "standard", "max_attempts": 5}
    )
    dynamodb = session.client("dynamodb", config=config)
    webhooks = aws_webhooks(settings, dynamodb, SnsPublisher(session.client("sns", config=config), settings.topic_arn))
    outboxes: list[ChangeOutbox] = [
        memories_outbox(dynamodb, settings.dynamodb_table),
        DynamoTenancyStore(dynamodb, settings.accounts_table, outbox=True),
    ]
    retries = (
        SqsQueue(session.client("sqs", config=config), settings.webhook_queue_url)
        if settings.webhook_queue_url
        else None
    )
    delivery = WebhookDelivery(
        webhooks.store,
        webhooks.dispatcher,
        webhooks.relay(lambda: outboxes),
        retries,
        margin_seconds=settings.webhook_timeout + MARGIN_SECONDS,
        listeners=[profile_changes(settings, dynamodb, session.client("sqs", config=config)).note]
        if settings.profile_queue_url
        else [],
    )
    return WebhookDeliveryRuntime(delivery, settings, [webhooks.close, delivery.close])


@dataclass
class DreamSchedulerRuntime:
    """What the Dream scheduler function runs with (built on its first invocation, kept for the next ones)."""

    scheduler: DreamScheduler
    settings: Settings

    def close(self) -> None:
        """Nothing to close: its clients are the SDK's."""


def build_aws_dream_scheduler(settings: Settings | None = None, *, session: Any | None = None) -> DreamSchedulerRuntime:
    """The schedule of Dream's Synthesis on AWS: the projects with Synthesis on and their users' runs (accounts
    table), each project's entity counts (the memories table's aggregates, never a scan), and the ingest queue the
    runs go to (MNEMO_QUEUE_URL: the ingest worker runs them). No provider is built: whether an LLM is configured is
    read from the configuration in effect (MNEMO_LLM_PROVIDER, or what POST /configure stored)."""
    import boto3

    from mnemo.adapters.aws.queue import SqsQueue
    from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
    from mnemo.adapters.dynamodb.reflection_store import DynamoReflectionStore
    from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
    from mnemo.errors import ConfigurationError

    settings = settings or Settings()
    if not settings.queue_url:
        raise ConfigurationError("The Dream scheduler needs MNEMO_QUEUE_URL (the ingest queue its runs go to).")
    session = session or boto3.Session(region_name=settings.aws_region)
    dynamodb = session.client("dynamodb")
    tenancy = DynamoTenancyStore(dynamodb, settings.accounts_table)
    enqueue = queue_enqueuer(SqsQueue(session.client("sqs"), settings.queue_url))
    configuration = DynamoMemoryStore(dynamodb, settings.dynamodb_table)
    defaults = settings.default_provider_config()

    def user_counts(project_id: str) -> list[EntityCount]:
        return DynamoMemoryStore(dynamodb, settings.dynamodb_table, namespace=project_id).count_by_entity()

    scheduler = DreamScheduler(
        tenancy,
        DynamoReflectionStore(dynamodb, settings.accounts_table),
        user_counts,
        lambda project, trigger, users, at: submit_run(tenancy, enqueue, project, trigger, users, at),
        policy=dream_policy(settings),
        available=lambda: settings.dream_synthesis and names_an_llm(configuration, defaults),
    )
    return DreamSchedulerRuntime(scheduler, settings)
