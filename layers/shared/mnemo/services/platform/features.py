"""The platform's features, as the composition root builds them (ServedServices.platform): one service per route
family, the job router and its queue consumer, the namespaces' memory services, and Dream's schedule. Everything is
given to the constructor; a feature a backend does not offer is an `Unavailable` in its place."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mnemo.ports.reflection_store import ReflectionStore
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.console_accounts.service import ConsoleAccounts
from mnemo.services.platform.dream.schedule import DreamScheduler
from mnemo.services.platform.dream.service import DreamService
from mnemo.services.platform.jobs.adds import AddJobs
from mnemo.services.platform.jobs.imports import ImportJobs
from mnemo.services.platform.jobs.queue_consumer import JobService
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.platform.memories.project_memory import ProjectMemoryService
from mnemo.services.platform.memories.retrieval_counts import RetrievalCounts
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.platform.tenancy.erasure import ProjectErasure
from mnemo.services.platform.tenancy.events import EventService
from mnemo.services.platform.tenancy.project_entities import ProjectEntityService
from mnemo.services.platform.tenancy.reports import ReportService
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.unavailable import Unavailable
from mnemo.services.platform.usage.report import UsageService
from mnemo.services.platform.webhooks.service import WebhookService


@dataclass(kw_only=True)
class PlatformFeatures:
    tenancy: TenancyService
    project_memory: ProjectMemoryService
    events: EventService
    entities: ProjectEntityService
    reports: ReportService
    adds: AddJobs
    imports: ImportJobs
    router: JobRouter  # runs a stored job event by its kind (the add worker's, the ingest function's)
    jobs: JobService  # what a queue worker does with each message
    namespaces: NamespaceMemoryServices
    dream: DreamService
    dream_reflections: ReflectionStore  # Dream's reflection state: the projects with Synthesis on, users' runs
    dream_scheduler: DreamScheduler  # finds the users due a Synthesis run and queues their runs
    webhooks: WebhookService | Unavailable
    profiles: ProfileService | Unavailable
    retrieval_counts: RetrievalCounts  # searches and gets counted (in memory while its writer runs)
    erasure: ProjectErasure  # what a delete scrubs beside the memories (events, deliveries, exports, profiles)
    console_auth: ConsoleAccounts  # the web console's sign-in (mnemo.ports.console_auth.ConsoleAuth)
    usage: UsageService  # a project's usage per day (its counters per day)
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        self.retrieval_counts.close()
        self.namespaces.close()
        for close in self.closers:
            close()
