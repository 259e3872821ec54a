"""The platform surface. Embedded backend: tenancy records in the main SQLite file, one SQLite file per project
namespace under `<data dir>/namespaces/`, and the in-process add worker. AWS backend: tenancy records in the
accounts table, each project's memories under its key prefix in the memories table and in its own OpenSearch
index, asynchronous adds queued to SQS for the ingest worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from mnemo.adapters.inprocess.queue import InProcessQueue
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.profile_store import SqliteProfileStore
from mnemo.adapters.sqlite.reflection_store import SqliteReflectionStore
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.adapters.sqlite.webhook_store import SqliteWebhookStore
from mnemo.adapters.webhooks.http_sender import HttpWebhookSender
from mnemo.composition.services import decay_settings, index_tuning, ranking_weights, reranker
from mnemo.domain.webhooks import OutboundEvent
from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.ports.profile_store import ProfileStore
from mnemo.ports.queue import MessageQueue
from mnemo.ports.reflection_store import ReflectionStore
from mnemo.ports.tenancy_store import EntityStore, TenancyStore
from mnemo.ports.webhook_store import WebhookStore
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.dream.runs import DreamJobs, DreamPolicy
from mnemo.services.platform.dream.schedule import DreamScheduler, DreamTimer
from mnemo.services.platform.dream.service import DreamService, Entitlements
from mnemo.services.platform.features import PlatformServices
from mnemo.services.platform.jobs.add_worker import AddWorker, local_enqueuer
from mnemo.services.platform.jobs.adds import AddJobs
from mnemo.services.platform.jobs.imports import ImportJobs
from mnemo.services.platform.jobs.queue_consumer import JobService
from mnemo.services.platform.jobs.queue_messages import queue_enqueuer
from mnemo.services.platform.jobs.queueing import Enqueue
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.platform.memories.project_memory import ProjectMemoryService
from mnemo.services.platform.memories.retrieval_counts import RetrievalCounts
from mnemo.services.platform.profiles.generation import ProfileGenerator, profile_generator
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.platform.profiles.worker import ProfileWorker
from mnemo.services.platform.tenancy.erasure import ProjectErasure
from mnemo.services.platform.tenancy.events import ADD, DREAM, IMPORT, EventService
from mnemo.services.platform.tenancy.project_entities import ProjectEntityService
from mnemo.services.platform.tenancy.reports import ReportService
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.webhooks.dispatcher import WebhookDispatcher
from mnemo.services.platform.webhooks.relay import WebhookRelay
from mnemo.services.platform.webhooks.service import WebhookService
from mnemo.services.platform.webhooks.worker import WebhookWorker
from mnemo.services.providers import ActiveProviders
from mnemo.settings import Settings

if TYPE_CHECKING:  # the AWS adapters import boto3: only the AWS backend loads them
    from mnemo.adapters.aws.publisher import SnsPublisher
    from mnemo.adapters.aws.queue import SqsQueue
    from mnemo.adapters.dynamodb.webhook_store import DynamoWebhookStore


def platform_services(
    settings: Settings,
    storage: MemoryNamespaces,
    store: TenancyStore,
    providers: ActiveProviders,
    reflections: ReflectionStore,
    webhook_store: WebhookStore | None = None,
    *,
    enqueue: Enqueue | None = None,
) -> PlatformServices:
    """The platform's services over a backend's namespaces, tenancy store and Dream's reflection store (an
    asynchronous add, an import or a Dream run runs as it is submitted until a queue is wired to AddJobs.enqueue)."""
    namespaces = NamespaceMemoryServices(storage, providers, ranking_weights(settings), reranker=reranker(settings))
    events = EventService(store)
    adds = AddJobs(namespaces, store, store, store, enqueue)
    imports = ImportJobs(namespaces, store, store, store, enqueue)
    erasure = ProjectErasure(
        store, store, webhook_store, lambda: platform.profiles.store if platform.profiles is not None else None
    )
    namespaces.on_erased = erasure.erased

    def drop_project(project_id: str) -> None:
        namespaces.drop(project_id)
        reflections.drop_project(project_id)
        if webhook_store is not None:
            webhook_store.delete_project_webhooks(project_id)
        if platform.profiles is not None:
            platform.profiles.drop_project(project_id)
        if erasure.purge is not None:
            erasure.purge()  # what the project's records held, out of the main file's WAL too

    tenancy = TenancyService(store, drop_project)
    counts = RetrievalCounts(store)  # written as they are made, unless start_workers starts its thread
    project_memory = ProjectMemoryService(namespaces, adds, events, store, decay_settings(settings), counts=counts)
    policy = dream_policy(settings)
    dream_jobs = DreamJobs(namespaces, store, reflections, lambda: providers.get().llm, enqueue, policy=policy)
    router = JobRouter(store, store, {ADD: adds, IMPORT: imports, DREAM: dream_jobs})
    dream = DreamService(
        tenancy,
        dream_entitlements(settings),
        reflections,
        project_memory,
        llm_available=lambda: providers.get().llm is not None,
    )
    dream.jobs = dream_jobs
    platform = PlatformServices(
        tenancy=tenancy,
        project_memory=project_memory,
        events=events,
        entities=ProjectEntityService(namespaces, store, events),
        reports=ReportService(namespaces, store, llm=lambda: providers.get().llm, counts=counts),
        adds=adds,
        imports=imports,
        router=router,
        jobs=JobService(router, max_attempts=settings.job_attempts),
        namespaces=namespaces,
        dream=dream,
        dream_reflections=reflections,
        dream_scheduler=DreamScheduler(
            store,
            reflections,
            lambda project_id: namespaces.memory_service(project_id).entity_counts(),
            dream_jobs.submit,
            policy=policy,
            available=lambda: settings.dream_synthesis and providers.get().llm is not None,
        ),
    )
    platform.erasure = erasure
    platform.retrieval_counts = counts
    return platform


def dream_entitlements(settings: Settings) -> Entitlements:
    return Entitlements(
        settings.plan,
        settings.reflection_interval_days,
        synthesis=settings.dream_synthesis,
        min_memories=settings.reflection_min_memories,
    )


def dream_policy(settings: Settings) -> DreamPolicy:
    return DreamPolicy(
        min_memories=settings.reflection_min_memories,
        interval=timedelta(days=settings.reflection_interval_days),
        lease=timedelta(seconds=settings.dream_lease_seconds),
        max_memories=settings.reflection_max_memories,
        max_syntheses=settings.reflection_max_syntheses,
        part_seconds=settings.dream_part_seconds,
    )


def active_profile_generator(providers: ActiveProviders) -> Callable[[], ProfileGenerator | None]:
    """The profile generator of the providers active now: the LLM's when one is configured, else the similarity
    generator on the embedder."""

    def generator() -> ProfileGenerator | None:
        active = providers.get()
        return profile_generator(active.llm, active.embedder)

    return generator


def webhook_sender(settings: Settings) -> HttpWebhookSender:
    return HttpWebhookSender(
        allow_private=settings.webhook_allow_private_urls,
        connect_timeout=settings.webhook_connect_timeout,
        timeout=settings.webhook_timeout,
    )


def profile_service(
    settings: Settings,
    store: ProfileStore,
    platform: PlatformServices,
    entities: EntityStore,
    providers: ActiveProviders,
) -> ProfileService:
    return ProfileService(
        store,
        platform.namespaces,
        entities,
        active_profile_generator(providers),
        debounce=settings.profile_debounce_seconds,
        max_wait=settings.profile_max_wait_seconds,
    )


def build_local_platform(
    settings: Settings, database: Database, providers: ActiveProviders, *, start_worker: bool = True
) -> PlatformServices:
    """Webhooks: every project's memory store and the tenancy store write their outboxes; the webhook worker
    thread drains them into deliveries and sends them, woken by each outbox write. Profiles: settings, profiles and
    jobs in the main file; the relay tells the profile service of each memory change it drains (which claims a
    debounced regeneration), and the profile worker thread runs the generations and jobs."""

    def wake() -> None:
        if platform.webhook_worker is not None:
            platform.webhook_worker.wake()

    store = SqliteTenancyStore(database, on_outbox=wake)
    jobs_queue = InProcessQueue()
    namespaces = SqliteMemoryNamespaces(
        settings.data_dir / "namespaces", outbox=True, on_outbox=wake, tuning=index_tuning(settings)
    )
    namespaces.shared = settings.http_workers > 1  # the relay reads the events other processes write
    webhook_store = SqliteWebhookStore(database)
    reflections = SqliteReflectionStore(database)
    platform = platform_services(
        settings, namespaces, store, providers, reflections, webhook_store, enqueue=local_enqueuer(jobs_queue)
    )
    if platform.erasure is not None:
        platform.erasure.purge = database.checkpoint  # the main file's WAL, once its records are scrubbed
    profiles = profile_service(settings, SqliteProfileStore(database), platform, store, providers)
    sender = webhook_sender(settings)
    dispatcher = WebhookDispatcher(webhook_store, sender, settings.webhook_retry_schedule)
    relay = WebhookRelay(webhook_store, lambda: [*namespaces.outboxes(), store], listeners=[profiles.note_changes])
    platform.webhooks = WebhookService(webhook_store, sender, dispatcher.attempt)
    platform.webhook_worker = WebhookWorker(relay, dispatcher)
    platform.closers.append(sender.close)
    platform.worker = AddWorker(platform.router, store, jobs_queue)
    platform.profiles = profiles
    platform.profile_worker = ProfileWorker(profiles)
    if platform.dream_scheduler is not None:
        platform.dream_timer = DreamTimer(platform.dream_scheduler, settings.dream_schedule_seconds)
    if start_worker:
        platform.start_workers()
    return platform


@dataclass
class AwsWebhooks:
    """The webhooks of the AWS backend: the store in the accounts table, the sender and dispatcher, and `publish`,
    which puts outbox events on the SNS events topic (each as a TopicEvent of its id, type, namespace, payload and
    time: mnemo.adapters.aws.publisher.topic_event)."""

    store: DynamoWebhookStore
    sender: HttpWebhookSender
    dispatcher: WebhookDispatcher
    publish: Callable[[Sequence[OutboundEvent]], None]

    def relay(self, outboxes: Callable[[], Sequence[ChangeOutbox]]) -> WebhookRelay:
        """A relay of these outboxes to the topic (each event published, then forgotten by its outbox)."""
        return WebhookRelay(self.store, outboxes, publish=self.publish)

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


def build_aws_platform(
    settings: Settings,
    dynamodb: Any,
    index_for: Callable[[str], MemoryIndex],
    providers: ActiveProviders,
    queue: MessageQueue | None,
    *,
    publisher: SnsPublisher | None = None,
    profile_queue: SqsQueue | None = None,
) -> PlatformServices:
    """No worker thread (Lambda freezes between calls): an asynchronous add is queued to SQS and the ingest
    worker runs it (mnemo.services.platform.jobs). Without a queue it runs as it is submitted.

    Webhooks, with a publisher (MNEMO_TOPIC_ARN): every project's memory store puts the events of its changes in
    the memories table's outbox and the tenancy store the ends of ingest jobs in the accounts table's, each in the
    transaction of the change; right after each such write (post-commit) the writing process drains that outbox
    to the SNS topic, whose subscription brings each event to the webhook delivery function (the sweep of that
    function drains what a process killed in between left). Without a publisher, no outbox is written and the
    webhook routes answer 503.

    Profiles, with a profile queue (MNEMO_PROFILE_QUEUE_URL): settings, profiles and jobs in the accounts table;
    generations and jobs are messages of that queue, which the ingest worker runs; the delivery function tells the
    profiles of memory changes (mnemo.composition.aws.build_aws_webhook_delivery). Without it, the profile routes
    answer 503."""
    from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces
    from mnemo.adapters.dynamodb.reflection_store import DynamoReflectionStore
    from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore

    webhooks = aws_webhooks(settings, dynamodb, publisher) if publisher is not None else None
    relays: dict[str, WebhookRelay] = {}

    def drain(outbox: str) -> Callable[[], None]:
        def after_commit() -> None:
            if outbox in relays:
                relays[outbox].drain()

        return after_commit

    on = webhooks is not None
    store = DynamoTenancyStore(dynamodb, settings.accounts_table, outbox=on, on_outbox=drain("tenancy"))
    storage = AwsMemoryNamespaces(dynamodb, settings.dynamodb_table, index_for, outbox=on, on_outbox=drain("memories"))
    reflections = DynamoReflectionStore(dynamodb, settings.accounts_table)
    platform = platform_services(
        settings,
        storage,
        store,
        providers,
        reflections,
        webhooks.store if webhooks else None,
        enqueue=queue_enqueuer(queue) if queue is not None else None,
    )
    if webhooks is not None:
        relays["memories"] = webhooks.relay(storage.outboxes)
        relays["tenancy"] = webhooks.relay(lambda: [store])
        platform.webhooks = WebhookService(webhooks.store, webhooks.sender, webhooks.dispatcher.attempt)
        platform.closers.append(webhooks.close)
    if profile_queue is not None:
        from mnemo.adapters.aws.profile_tasks import SqsProfileTasks
        from mnemo.adapters.dynamodb.profile_store import DynamoProfileStore

        profiles_store = DynamoProfileStore(dynamodb, settings.accounts_table)
        platform.profiles = profile_service(settings, profiles_store, platform, store, providers)
        platform.profiles.tasks = SqsProfileTasks(profile_queue)
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
