"""A project's memories on the platform: adds (run now, or queued as events), search, lists, one memory, its
history, and deletes and updates of many. Every call names its project; the project's MemoryService answers from
that project's namespace only, and reads and searches are counted for the project's statistics."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from mnemo.domain import filters as f
from mnemo.domain.memory import ACTIVE_ONLY, HistoryEntry, LifecycleState, MemoryRecord, now
from mnemo.domain.tenancy import PlatformEvent, Project
from mnemo.errors import ConflictError, NotFoundError, ValidationError
from mnemo.ports.tenancy_store import ProjectRecordStore
from mnemo.services.commands import UNSET, AddCommand, SearchCommand, SearchResult, UpdateCommand
from mnemo.services.decay import Decay, DecaySettings
from mnemo.services.memory import MemoryService
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.jobs.adds import AddJobs
from mnemo.services.platform.memories.retrieval_counts import RetrievalCounts
from mnemo.services.platform.tenancy.events import DELETE, EventService

MEMORY_NOT_FOUND = "Memory not found!"
BATCH_LIMIT = 1000  # memories one batch update or delete may name


@dataclass(frozen=True, slots=True)
class MemoryPage:
    records: list[MemoryRecord]
    total: int | None  # counted only when asked for


@dataclass(frozen=True, slots=True)
class Deleted:
    event_id: str
    count: int


def checked_memory_id(memory_id: str) -> str:
    try:
        uuid.UUID(memory_id)
    except ValueError:
        raise ValidationError("memory_id should be a valid UUID") from None
    return memory_id


class ProjectMemoryService:
    def __init__(
        self,
        namespaces: NamespaceMemoryServices,
        adds: AddJobs,
        events: EventService,
        records: ProjectRecordStore,
        decay: DecaySettings | None = None,
        clock: Callable[[], datetime] = now,
        *,
        counts: RetrievalCounts | None = None,
    ) -> None:
        """`decay`: how memories age in the v3 search of a project with `decay` on (the deployment's settings);
        `clock`: the moment ages are counted to (tests and benchmarks set it); `counts`: where searches and gets
        are counted (default: written to `records` as they are made)."""
        self._namespaces = namespaces
        self._adds = adds
        self._events = events
        self._records = records
        self.decay = decay or DecaySettings()
        self.clock = clock
        self._counts = counts or RetrievalCounts(records)

    def memory_service(self, project_id: str) -> MemoryService:
        return self._namespaces.memory_service(project_id)

    # ---- add ----

    def add(self, project: Project, command: AddCommand, *, asynchronous: bool = True) -> PlatformEvent:
        """An add with the project's settings. Inferred adds are queued (a PENDING event) unless the caller asks
        to wait (`asynchronous=False`); verbatim ones (infer=false) are stored at once (a SUCCEEDED event)."""
        if command.infer and asynchronous:
            return self._adds.submit(project, command)
        return self._adds.run_now(project, command)

    # ---- read ----

    def search(self, project: Project, command: SearchCommand, *, v3: bool = False) -> list[SearchResult]:
        """The project's search. A v3 search (`v3`) of a project with `decay` on ranks by relevance × freshness and
        reinforces what it returns (mnemo.services.decay); v1 and v2 never decay, as the interface says."""
        if v3 and project.decay:
            command = replace(command, decay=Decay(self.decay, self.clock()))
        results = self.memory_service(project.id).search(command)
        self._counts.bump(project.id, "search_events")
        return results

    def find(
        self,
        project_id: str,
        expr: f.Expr,
        *,
        limit: int,
        offset: int = 0,
        show_expired: bool = False,
        total: bool,
        states: Sequence[LifecycleState] = ACTIVE_ONLY,
    ) -> MemoryPage:
        """Newest first, in the lifecycle `states` asked for; `total`: count every match too (a paginated
        answer)."""
        service = self.memory_service(project_id)
        records = service.get_all(expr, top_k=limit, offset=offset, show_expired=show_expired, states=states)
        counted = service.count(expr, show_expired=show_expired, states=states) if total else None
        self._counts.bump(project_id, "get_events")
        return MemoryPage(records, counted)

    def get(self, project_id: str, memory_id: str) -> MemoryRecord:
        record = self._existing(project_id, memory_id)
        self._counts.bump(project_id, "get_events")
        return record

    def sources_of(self, project_id: str, memory_id: str) -> tuple[MemoryRecord, list[MemoryRecord]]:
        """A memory and the memories it was drawn from (a synthesized memory's `derived_from`, those still stored,
        in that order; none for any other memory)."""
        record = self._existing(project_id, memory_id)
        found = self.memory_service(project_id).store.get_many(list(record.derived_from))
        return record, [found[m] for m in record.derived_from if m in found]

    def history(self, project_id: str, memory_id: str) -> tuple[list[HistoryEntry], MemoryRecord | None]:
        """The memory's history, oldest first, and the memory itself while it exists."""
        service = self.memory_service(project_id)
        entries = service.store.history(checked_memory_id(memory_id))
        if not entries:
            raise NotFoundError(MEMORY_NOT_FOUND)
        return entries, service.store.get(memory_id)

    def recent_history(self, project_id: str, limit: int) -> tuple[list[HistoryEntry], dict[str, MemoryRecord]]:
        """The project's newest `limit` history entries, of every memory (deleted ones included), newest first, and
        the memories they are of that still exist."""
        service = self.memory_service(project_id)
        entries = service.store.recent_history(limit)
        return entries, service.store.get_many(list(dict.fromkeys(e.memory_id for e in entries)))

    # ---- change ----

    def update(self, project_id: str, command: UpdateCommand) -> MemoryRecord:
        self._existing(project_id, command.memory_id)
        if (
            command.text is None
            and command.metadata is None
            and command.expiration_date is UNSET
            and command.created_at is None
        ):
            raise ValidationError("At least one of text, metadata, expiration_date or timestamp must be provided.")
        return self.memory_service(project_id).update(command)

    def delete(self, project_id: str, memory_id: str) -> None:
        self._existing(project_id, memory_id)
        self.memory_service(project_id).delete(memory_id)

    def delete_matching(self, project_id: str, expr: f.Expr, payload: dict[str, Any]) -> Deleted:
        """Delete every memory (active or not) the filter matches, each with its DELETE history entry, and record
        the operation as one DELETE event (`payload`: what the caller asked)."""
        deleted = delete_matching(self.memory_service(project_id), expr)
        results = [{"id": memory_id, "event": "DELETE"} for memory_id in deleted]
        return Deleted(self._events.record(project_id, DELETE, payload, results), len(deleted))

    def update_many(self, project_id: str, commands: Sequence[UpdateCommand]) -> int:
        """All or nothing: every memory is checked to exist and not to be immutable, and every change to say
        something, before any."""
        found = self._batch_records(project_id, [c.memory_id for c in commands], "updated")
        immutable = [memory_id for memory_id, record in found.items() if record.immutable]
        if immutable:
            raise ConflictError(f"Immutable memories cannot be updated (nothing was): {', '.join(immutable)}")
        for command in commands:
            if command.text is None and command.metadata is None:
                raise ValidationError(f"Memory {command.memory_id}: give text or metadata.")
        service = self.memory_service(project_id)
        for command in commands:
            service.update(command)
        return len(commands)

    def delete_many(self, project_id: str, memory_ids: Sequence[str]) -> int:
        self._batch_records(project_id, memory_ids, "deleted")
        self.memory_service(project_id).delete_many(memory_ids)
        return len(memory_ids)

    def _existing(self, project_id: str, memory_id: str) -> MemoryRecord:
        record = self.memory_service(project_id).store.get(checked_memory_id(memory_id))
        if record is None:
            raise NotFoundError(MEMORY_NOT_FOUND)
        return record

    def _batch_records(self, project_id: str, memory_ids: Sequence[str], verb: str) -> dict[str, MemoryRecord]:
        if len(memory_ids) > BATCH_LIMIT:
            raise ValidationError(f"Maximum of {BATCH_LIMIT} memories can be {verb} in a single request")
        if not memory_ids:
            raise ValidationError("memories must not be empty.")
        found = self.memory_service(project_id).store.get_many([checked_memory_id(i) for i in memory_ids])
        missing = [memory_id for memory_id in memory_ids if memory_id not in found]
        if missing:
            raise NotFoundError(f"Memories not found: {', '.join(missing)}")
        return found


def delete_matching(service: MemoryService, expr: f.Expr) -> list[str]:
    """Delete every memory (active or not) the filter matches, each with its DELETE history entry, as one
    operation (one erasure: mnemo.domain.erasure); their ids (one deleted meanwhile included)."""
    ids = [r.id for r in service.store.find(expr)]
    service.delete_many(ids)
    return ids
