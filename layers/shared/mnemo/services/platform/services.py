"""The platform's services, as the composition root wires them (Services.platform)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.add_jobs import AddJobs
from mnemo.services.platform.add_worker import AddWorker
from mnemo.services.platform.entities import ProjectEntityService
from mnemo.services.platform.events import EventService
from mnemo.services.platform.jobs import JobService
from mnemo.services.platform.project_memory import ProjectMemoryService
from mnemo.services.platform.reports import ReportService
from mnemo.services.platform.tenancy import TenancyService


@dataclass
class PlatformServices:
    tenancy: TenancyService
    project_memory: ProjectMemoryService
    events: EventService
    entities: ProjectEntityService
    reports: ReportService
    adds: AddJobs
    jobs: JobService
    namespaces: NamespaceMemoryServices
    worker: AddWorker | None = None  # the local worker of asynchronous adds (None where a queue service runs them)
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        self.namespaces.close()
        for close in self.closers:
            close()
