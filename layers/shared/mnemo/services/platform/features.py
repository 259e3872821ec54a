"""The platform's services, as the composition root wires them (Services.platform)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mnemo.ports.reflection_store import ReflectionStore
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.dream.schedule import DreamScheduler, DreamTimer
from mnemo.services.platform.dream.service import DreamService
from mnemo.services.platform.jobs.add_worker import AddWorker
from mnemo.services.platform.jobs.adds import AddJobs
from mnemo.services.platform.jobs.imports import ImportJobs
from mnemo.services.platform.jobs.queue_consumer import JobService
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.platform.memories.project_memory import ProjectMemoryService
from mnemo.services.platform.memories.retrieval_counts import RetrievalCounts
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.platform.profiles.worker import ProfileWorker
from mnemo.services.platform.tenancy.erasure import ProjectErasure
from mnemo.services.platform.tenancy.events import EventService
from mnemo.services.platform.tenancy.project_entities import ProjectEntityService
from mnemo.services.platform.tenancy.reports import ReportService
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.webhooks.service import WebhookService
from mnemo.services.platform.webhooks.worker import WebhookWorker


@dataclass
class PlatformServices:
    tenancy: TenancyService
    project_memory: ProjectMemoryService
    events: EventService
    entities: ProjectEntityService
    reports: ReportService
    adds: AddJobs
    imports: ImportJobs
    router: JobRouter  # runs a stored job event by its kind (the add worker's, the ingest function's)
    jobs: JobService
    namespaces: NamespaceMemoryServices
    dream: DreamService
    dream_reflections: ReflectionStore  # Dream's reflection state: the projects with Synthesis on, users' runs
    webhooks: WebhookService | None = None  # None: a backend without webhooks
    worker: AddWorker | None = None  # the local worker of asynchronous adds (None where a queue service runs them)
    webhook_worker: WebhookWorker | None = None  # the local relay and dispatcher of webhook deliveries
    profiles: ProfileService | None = None  # None: a backend without profiles (AWS without the profile queue)
    profile_worker: ProfileWorker | None = None  # the local worker of profile generations and jobs
    dream_scheduler: DreamScheduler | None = None  # finds the users due a Synthesis run and queues their runs
    dream_timer: DreamTimer | None = None  # the local schedule: ticks the scheduler (a thread of mnemo serve)
    retrieval_counts: RetrievalCounts | None = None  # searches and gets counted in memory, written by a thread
    erasure: ProjectErasure | None = None  # what a delete scrubs beside the memories (events, deliveries, exports)
    closers: list[Callable[[], None]] = field(default_factory=list)

    def start_workers(self, *, leader: bool = True) -> None:
        """The local background threads: the writers of recorded accesses and of retrieval counts, the add worker,
        the webhook worker, the profile worker, then Dream's schedule. When several processes serve the data dir,
        each runs its own writers and the workers of the jobs it queues; one, the `leader`, also queues again what a
        stop left unfinished, relays every process's webhook events and ticks Dream's schedule."""
        self.namespaces.access_buffer.start()
        if self.retrieval_counts is not None:
            self.retrieval_counts.start()
        if self.worker is not None:
            self.worker.start(requeue=leader)
        if self.webhook_worker is not None and leader:
            self.webhook_worker.start()
        if self.profile_worker is not None:
            self.profile_worker.start(resume=leader)
        if self.dream_timer is not None and leader:
            self.dream_timer.start()

    def close(self) -> None:
        if self.dream_timer is not None:
            self.dream_timer.stop()
        if self.worker is not None:
            self.worker.stop()
        if self.webhook_worker is not None:
            self.webhook_worker.stop()
        if self.profile_worker is not None:
            self.profile_worker.stop()
        if self.retrieval_counts is not None:
            self.retrieval_counts.close()
        self.namespaces.close()
        for close in self.closers:
            close()
