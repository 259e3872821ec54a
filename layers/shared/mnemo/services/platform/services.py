"""The platform's services, as the composition root wires them (Container.platform)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.services.platform.memories import AddWorker, ProjectMemories
from mnemo.services.platform.reports import Reports
from mnemo.services.platform.tenancy import TenancyService


@dataclass
class PlatformServices:
    tenancy: TenancyService
    memories: ProjectMemories
    reports: Reports
    namespaces: MemoryNamespaces
    worker: AddWorker | None = None  # the local worker of asynchronous adds (None where a queue service runs them)
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        self.namespaces.close()
        for close in self.closers:
            close()
