"""The platform's features over the store-level pieces a backend built first (composition/local.py,
composition/aws.py): what both backends wire the same way, in dependency order, every object through its
constructor. The backend gives its stores, its job queue (or none: a job runs as it is submitted), its profile
task queue (or none: no profiles), and its webhook service (or none: no webhooks)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from mnemo.adapters.crypto.argon2_passwords import Argon2PasswordHasher
from mnemo.composition.lazy_sender import LazyWebhookSender
from mnemo.composition.shared import add_policy, decay_settings, ranking_weights, reranker
from mnemo.language.en import english
from mnemo.language.en.profile_values import EnglishProfileValues
from mnemo.ports.console_account_store import ConsoleAccountStore
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.ports.profile_store import ProfileStore
from mnemo.ports.profile_tasks import ProfileTaskQueue
from mnemo.ports.reflection_store import ReflectionStore
from mnemo.ports.tenancy_store import DirectoryStore, TenancyStore
from mnemo.ports.webhook_store import WebhookStore
from mnemo.services.namespace_memory import PLATFORM_POLICY, NamespaceMemoryServices
from mnemo.services.platform.console_accounts.policy import ConsolePolicy
from mnemo.services.platform.console_accounts.service import ConsoleAccounts
from mnemo.services.platform.dream.runs import DreamJobs, DreamPolicy
from mnemo.services.platform.dream.schedule import DreamScheduler
from mnemo.services.platform.dream.service import DreamService, Entitlements
from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.platform.jobs.adds import AddJobs
from mnemo.services.platform.jobs.imports import ImportJobs
from mnemo.services.platform.jobs.queue_consumer import JobService
from mnemo.services.platform.jobs.queueing import Enqueue
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.platform.memories.project_memory import ProjectMemoryService
from mnemo.services.platform.memories.retrieval_counts import RetrievalCounts
from mnemo.services.platform.profiles.generation import ProfileGenerator, profile_generator
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.platform.tenancy.erasure import ProjectErasure
from mnemo.services.platform.tenancy.events import ADD, DREAM, IMPORT, EventService
from mnemo.services.platform.tenancy.project_entities import ProjectEntityService
from mnemo.services.platform.tenancy.reports import ReportService
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.unavailable import Unavailable
from mnemo.services.platform.usage.daily import CountedByDay
from mnemo.services.platform.usage.report import UsageService, stored_memories
from mnemo.services.platform.webhooks.service import WebhookService
from mnemo.services.providers import ActiveProviders
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.adapters.webhooks.http_sender import HttpWebhookSender

NO_WEBHOOKS = Unavailable("Webhooks are not available on this backend.")
NO_PROFILES = Unavailable("Profiles are not available on this backend.")


@dataclass(frozen=True)
class PlatformStores:
    """The store-level pieces of the platform, built first by the backend."""

    tenancy: TenancyStore
    storage: MemoryNamespaces  # each project's namespace: its record store, index and access log
    reflections: ReflectionStore
    webhooks: WebhookStore | None  # None: a backend without webhooks
    profiles: ProfileStore | None  # None: a backend without profiles
    console: ConsoleAccountStore  # the console's sign-in: passwords, sessions, invitations
    purge: Callable[[], object] | None = None  # what makes rewritten records unrecoverable (a checkpoint)


@dataclass(frozen=True)
class PlatformQueues:
    """Where the backend's background work waits."""

    jobs: Enqueue | None  # adds, imports, Dream runs (None: each runs as it is submitted)
    profile_tasks: ProfileTaskQueue | None  # profile generations and jobs (None with no profile store)


def build_platform(
    settings: Settings,
    stores: PlatformStores,
    queues: PlatformQueues,
    providers: ActiveProviders,
    webhooks: WebhookService | Unavailable,
) -> PlatformFeatures:
    """Erasure, the namespaces, the jobs and their router, profiles, tenancy, memories, Dream, in that order."""
    store = stores.tenancy
    erasure = ProjectErasure(store, store, stores.webhooks, stores.profiles, purge=stores.purge)
    namespaces = NamespaceMemoryServices(
        stores.storage,
        providers,
        ranking_weights(settings),
        reranker=reranker(settings),
        policy=add_policy(settings, PLATFORM_POLICY),
        on_erased=erasure.erased,
        language=english(),
    )
    events = EventService(store)
    records = CountedByDay(store, store)  # every counter bumped is counted on its day too (the usage report's)
    adds = AddJobs(namespaces, store, store, records, queues.jobs)
    imports = ImportJobs(namespaces, store, store, records, queues.jobs)
    policy = dream_policy(settings)
    dream_jobs = DreamJobs(
        namespaces, store, stores.reflections, lambda: providers.get().llm, queues.jobs, policy=policy
    )
    router = JobRouter(store, store, {ADD: adds, IMPORT: imports, DREAM: dream_jobs})
    profiles = profile_service(settings, stores, queues, namespaces, providers)
    console = console_accounts(settings, store, stores.console)
    tenancy = TenancyService(store, ProjectDrop(stores, namespaces, profiles).drop, invitations=console.invites)
    counts = RetrievalCounts(records)  # written as they are made, unless its writer runs
    project_memory = ProjectMemoryService(namespaces, adds, events, records, decay_settings(settings), counts=counts)
    dream = DreamService(
        tenancy,
        dream_entitlements(settings),
        stores.reflections,
        project_memory,
        dream_jobs,
        llm_available=lambda: providers.get().llm is not None,
    )
    return PlatformFeatures(
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
        dream_reflections=stores.reflections,
        dream_scheduler=DreamScheduler(
            store,
            stores.reflections,
            lambda project_id: namespaces.memory_service(project_id).entity_counts(),
            dream_jobs.submit,
            policy=policy,
            available=lambda: settings.dream_synthesis and providers.get().llm is not None,
        ),
        webhooks=webhooks,
        profiles=profiles,
        retrieval_counts=counts,
        erasure=erasure,
        console_auth=console,
        usage=UsageService(store, store, stored_memories(namespaces), flush=counts.flush),
    )


@dataclass(frozen=True)
class ProjectDrop:
    """What deleting a project drops beside its records: its namespace, its reflection state, its webhooks, its
    profiles; then what its records held goes out of the main file's WAL too."""

    stores: PlatformStores
    namespaces: NamespaceMemoryServices
    profiles: ProfileService | Unavailable

    def drop(self, project_id: str) -> None:
        self.namespaces.drop(project_id)
        self.stores.reflections.drop_project(project_id)
        if self.stores.webhooks is not None:
            self.stores.webhooks.delete_project_webhooks(project_id)
        if isinstance(self.profiles, ProfileService):
            self.profiles.drop_project(project_id)
        if self.stores.purge is not None:
            self.stores.purge()


def profile_service(
    settings: Settings,
    stores: PlatformStores,
    queues: PlatformQueues,
    namespaces: NamespaceMemoryServices,
    providers: ActiveProviders,
) -> ProfileService | Unavailable:
    if stores.profiles is None or queues.profile_tasks is None:
        return NO_PROFILES
    return ProfileService(
        stores.profiles,
        namespaces,
        stores.tenancy,
        active_profile_generator(providers),
        tasks=queues.profile_tasks,
        debounce=settings.profile_debounce_seconds,
        max_wait=settings.profile_max_wait_seconds,
    )


def console_policy(settings: Settings) -> ConsolePolicy:
    return ConsolePolicy(
        session_idle=timedelta(minutes=settings.console_session_idle_minutes),
        session_lifetime=timedelta(days=settings.console_session_days),
        invitation_lifetime=timedelta(days=settings.console_invitation_days),
        max_failures=settings.console_sign_in_max_failures,
        failure_window=timedelta(minutes=settings.console_sign_in_window_minutes),
    )


def console_accounts(settings: Settings, directory: DirectoryStore, store: ConsoleAccountStore) -> ConsoleAccounts:
    """The console's sign-in, its passwords hashed as the self-hosted accounts' are (argon2id, same costs)."""
    hasher = Argon2PasswordHasher(settings.argon2_time_cost, settings.argon2_memory_kib, settings.argon2_parallelism)
    return ConsoleAccounts(directory, store, hasher, console_policy(settings))


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
        return profile_generator(active.llm, active.embedder, values=EnglishProfileValues())

    return generator


def webhook_sender(settings: Settings) -> LazyWebhookSender:
    """The HTTP sender, made (and its module imported) on its first use."""

    def make() -> HttpWebhookSender:
        from mnemo.adapters.webhooks.http_sender import HttpWebhookSender

        return HttpWebhookSender(
            allow_private=settings.webhook_allow_private_urls,
            connect_timeout=settings.webhook_connect_timeout,
            timeout=settings.webhook_timeout,
        )

    return LazyWebhookSender(make)


@contextmanager
def open_platform_records(
    settings: Settings, session: Any | None = None
) -> Iterator[tuple[TenancyStore, ConsoleAccountStore]]:
    """The tenancy records alone and the console's beside them (what `mnemo platform bootstrap` and `set-password`
    write): the SQLite file of the data dir, or the accounts table on the AWS backend (`session`: a boto3 session,
    default the SDK's credential chain)."""
    if settings.backend == "aws":
        from mnemo.adapters.dynamodb.console_account_store import DynamoConsoleAccountStore
        from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
        from mnemo.composition.aws_session import aws_session

        session = session or aws_session(settings.aws_region)
        client = session.client("dynamodb")
        yield (
            DynamoTenancyStore(client, settings.accounts_table),
            DynamoConsoleAccountStore(client, settings.accounts_table),
        )
        return
    from mnemo.adapters.sqlite.console_account_store import SqliteConsoleAccountStore
    from mnemo.adapters.sqlite.database import Database
    from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore

    database = Database(settings.database_path)
    try:
        yield SqliteTenancyStore(database), SqliteConsoleAccountStore(database)
    finally:
        database.close()


@contextmanager
def open_tenancy_store(settings: Settings, session: Any | None = None) -> Iterator[TenancyStore]:
    """The tenancy records alone (see open_platform_records)."""
    with open_platform_records(settings, session) as (store, _console):
        yield store


@contextmanager
def open_console_accounts(
    settings: Settings, session: Any | None = None
) -> Iterator[tuple[TenancyStore, ConsoleAccounts]]:
    """The tenancy records and the console's sign-in over them (see open_platform_records)."""
    with open_platform_records(settings, session) as (store, console):
        yield store, console_accounts(settings, store, console)
