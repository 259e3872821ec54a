"""POST /v1/event/{id}/cancel/ when the job ends between the service's read and its write: the store's status rule
refuses the cancel, and the caller is told the job has ended (409), not that it is gone (404)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

import pytest

from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.errors import ConflictError, NotFoundError
from mnemo.ports.tenancy_store import EventStore
from mnemo.services.platform.tenancy.events import ADD, EventService, new_event

T0 = datetime(2026, 1, 2, tzinfo=UTC)


class EndsWhileCancelled:
    """An event store whose job ends (or whose event goes) just as the cancel is written: the write is refused."""

    def __init__(self, running: PlatformEvent, then: PlatformEvent | None) -> None:
        self._read: PlatformEvent | None = running
        self._then = then
        self.writes: list[PlatformEvent] = []

    def get_event(self, project_id: str, event_id: str) -> PlatformEvent | None:
        return self._read

    def update_event(self, event: PlatformEvent) -> bool:
        self.writes.append(event)
        self._read = self._then  # the worker's end landed first; the store refuses the cancel
        return False


def running() -> PlatformEvent:
    return new_event("proj_a", ADD, {"messages": []}, T0).changed(status=EventStatus.RUNNING)


def test_a_job_that_ended_as_it_was_cancelled_is_a_conflict_naming_its_end() -> None:
    job = running()
    store = EndsWhileCancelled(job, job.changed(status=EventStatus.SUCCEEDED))
    with pytest.raises(ConflictError, match=r"already ended \(SUCCEEDED\)"):
        EventService(cast(EventStore, store), clock=lambda: T0).cancel("proj_a", job.id)
    assert [w.status for w in store.writes] == [EventStatus.CANCELLED]


def test_a_job_whose_project_went_as_it_was_cancelled_is_not_found() -> None:
    job = running()
    with pytest.raises(NotFoundError):
        EventService(cast(EventStore, EndsWhileCancelled(job, None)), clock=lambda: T0).cancel("proj_a", job.id)
