"""The platform's features on the AWS backend (composition/aws.py builds them on their first use).

The platform: tenancy records in the accounts table, each project's memories under its key prefix in the memories
table and in its own OpenSearch index; an asynchronous add, import or Dream run is queued to SQS (MNEMO_QUEUE_URL)
for the ingest worker, or runs as it is submitted without a queue.

Webhooks, with a publisher (MNEMO_TOPIC_ARN): every project's memory store puts the events of its changes in the
memories table's outbox and the tenancy store the ends of ingest jobs in the accounts table's, each in the
transaction of the change; right after each such write (post-commit) the writing process drains that outbox to the
SNS topic, whose subscription brings each event to the webhook delivery function (the sweep of that function drains
what a process killed in between left). Without a publisher, no outbox is written and the webhook routes answer 503.

Profiles, with a profile queue (MNEMO_PROFILE_QUEUE_URL): settings, profiles and jobs in the accounts table;
generations and jobs are messages of that queue, which the ingest worker runs; the delivery function tells the
profiles of memory changes. Without it, the profile routes answer 503."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mnemo.composition.platform import (
    NO_WEBHOOKS,
    PlatformQueues,
    PlatformStores,
    build_platform,
    webhook_sender,
)
from mnemo.domain.webhooks import OutboundEvent
from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.profile_store import ProfileStore
from mnemo.ports.profile_tasks import ProfileTaskQueue
from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.platform.jobs.queue_messages import queue_enqueuer
from mnemo.services.platform.webhooks.dispatcher import WebhookDispatcher
from mnemo.services.platform.webhooks.relay import WebhookRelay
from mnemo.services.platform.webhooks.service import WebhookService
from mnemo.services.providers import ActiveProviders
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.adapters.aws.publisher import SnsPublisher
    from mnemo.adapters.dynamodb.webhook_store import DynamoWebhookStore
    from mnemo.composition.aws_adapters import AwsAdapters
    from mnemo.composition.lazy_sender import LazyWebhookSender


def aws_platform(
    settings: Settings,
    dynamodb: Any,
    aws: AwsAdapters,
    index_for: Callable[[str], MemoryIndex],
    providers: ActiveProviders,
) -> PlatformFeatures:
    """The outboxes and their relays to the topic first (with a publisher), then the stores that drain them after
    each commit, then the features."""
    from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces
    from mnemo.adapters.dynamodb.console_account_store import DynamoConsoleAccountStore
    from mnemo.adapters.dynamodb.outbox import memories_outbox
    from mnemo.adapters.dynamodb.reflection_store import DynamoReflectionStore
    from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore

    webhooks = aws_webhooks(settings, dynamodb, aws.publisher) if aws.publisher is not None else None
    on = webhooks is not None
    tenancy_outbox = DynamoTenancyStore(dynamodb, settings.accounts_table, outbox=True)
    tenancy_relay = webhooks.relay([tenancy_outbox]) if webhooks is not None else None
    memories_relay = webhooks.relay([memories_outbox(dynamodb, settings.dynamodb_table)]) if webhooks else None
    store = DynamoTenancyStore(dynamodb, settings.accounts_table, outbox=on, on_outbox=after_commit(tenancy_relay))
    storage = AwsMemoryNamespaces(
        dynamodb, settings.dynamodb_table, index_for, outbox=on, on_outbox=after_commit(memories_relay)
    )
    profile_store, profile_tasks = aws_profiles(settings, dynamodb, aws)
    stores = PlatformStores(
        store,
        storage,
        DynamoReflectionStore(dynamodb, settings.accounts_table),
        webhooks.store if webhooks is not None else None,
        profile_store,
        DynamoConsoleAccountStore(dynamodb, settings.accounts_table),
    )
    queues = PlatformQueues(queue_enqueuer(aws.queue) if aws.queue is not None else None, profile_tasks)
    service = webhooks.service() if webhooks is not None else NO_WEBHOOKS
    platform = build_platform(settings, stores, queues, providers, service)
    if webhooks is not None:
        platform.closers.append(webhooks.close)
    return platform


def after_commit(relay: WebhookRelay | None) -> Callable[[], None] | None:
    """What a store calls after each write that put events in its outbox: the relay drains it to the topic."""
    if relay is None:
        return None

    def drain() -> None:
        relay.drain()

    return drain


def aws_profiles(
    settings: Settings, dynamodb: Any, aws: AwsAdapters
) -> tuple[ProfileStore | None, ProfileTaskQueue | None]:
    """The profile store and task queue, with a profile queue (else none: no profiles)."""
    if aws.profile_queue is None:
        return None, None
    from mnemo.adapters.aws.profile_tasks import SqsProfileTasks
    from mnemo.adapters.dynamodb.profile_store import DynamoProfileStore

    return DynamoProfileStore(dynamodb, settings.accounts_table), SqsProfileTasks(aws.profile_queue)


@dataclass
class AwsWebhooks:
    """The webhooks of the AWS backend: the store in the accounts table, the sender and dispatcher, and `publish`,
    which puts outbox events on the SNS events topic (each as a TopicEvent of its id, type, namespace, payload and
    time: mnemo.adapters.aws.publisher.topic_event)."""

    store: DynamoWebhookStore
    sender: LazyWebhookSender
    dispatcher: WebhookDispatcher
    publish: Callable[[Sequence[OutboundEvent]], None]

    def relay(self, outboxes: Sequence[ChangeOutbox]) -> WebhookRelay:
        """A relay of these outboxes to the topic (each event published, then forgotten by its outbox)."""
        listed = list(outboxes)
        return WebhookRelay(self.store, lambda: listed, publish=self.publish)

    def service(self) -> WebhookService:
        return WebhookService(self.store, self.sender, self.dispatcher.attempt)

    def close(self) -> None:
        self.dispatcher.close()
        self.sender.close()


def aws_webhooks(settings: Settings, dynamodb: Any, publisher: SnsPublisher) -> AwsWebhooks:
    from mnemo.adapters.aws.publisher import topic_event
    from mnemo.adapters.dynamodb.webhook_store import DynamoWebhookStore

    def publish(events: Sequence[OutboundEvent]) -> None:
        publisher.publish_all([topic_event(e) for e in events])

    store = DynamoWebhookStore(dynamodb, settings.accounts_table)
    sender = webhook_sender(settings)
    return AwsWebhooks(store, sender, WebhookDispatcher(store, sender, settings.webhook_retry_schedule), publish)
