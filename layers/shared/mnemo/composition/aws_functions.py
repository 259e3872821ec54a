"""The smaller compositions of two AWS functions, built on their first invocation: the webhook delivery function's
(the webhook store and sender, the outboxes of both tables and the topic, the delivery queue for retries; no
provider, index or secret) and the Dream scheduler function's (the tenancy and reflection stores, the memories
table's entity counts, and the ingest queue the runs go to)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mnemo.composition.aws_platform import aws_webhooks
from mnemo.composition.platform import dream_policy
from mnemo.domain.entities import EntityCount
from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.services.configuration import names_an_llm
from mnemo.services.platform.dream.runs import submit_run
from mnemo.services.platform.dream.schedule import DreamScheduler
from mnemo.services.platform.jobs.queue_messages import queue_enqueuer
from mnemo.services.platform.profiles.changes import ProfileChanges
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.services.platform.webhooks.queue_delivery import WebhookDelivery

MARGIN_SECONDS = 5.0  # beyond an attempt's timeout, what an invocation keeps in hand before it stops attempting


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
    from botocore.config import Config

    from mnemo.adapters.aws.publisher import SnsPublisher
    from mnemo.adapters.aws.queue import SqsQueue
    from mnemo.adapters.dynamodb.outbox import memories_outbox
    from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
    from mnemo.composition.aws_session import aws_session
    from mnemo.errors import ConfigurationError
    from mnemo.services.platform.webhooks.queue_delivery import WebhookDelivery

    settings = settings or Settings()
    if not settings.topic_arn:
        raise ConfigurationError("The webhook delivery function needs MNEMO_TOPIC_ARN (the events topic).")
    session = session or aws_session(settings.aws_region)
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
        webhooks.relay(outboxes),
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
    from mnemo.adapters.aws.queue import SqsQueue
    from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
    from mnemo.adapters.dynamodb.reflection_store import DynamoReflectionStore
    from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
    from mnemo.composition.aws_session import aws_session
    from mnemo.errors import ConfigurationError

    settings = settings or Settings()
    if not settings.queue_url:
        raise ConfigurationError("The Dream scheduler needs MNEMO_QUEUE_URL (the ingest queue its runs go to).")
    session = session or aws_session(settings.aws_region)
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
