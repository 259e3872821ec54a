"""Queueing a job: its PENDING event stored first, then its message sent (an acknowledged job is never lost), and
the errors after which a job is worth running again (RetryLaterError: the queue brings it back)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.errors import BackendBusyError, ProviderError, UnavailableError
from mnemo.ports.tenancy_store import EventStore

if TYPE_CHECKING:
    pass


log = logging.getLogger("mnemo.platform.worker")

# How an add event is queued: (project id, event id, owner). The owner (`user:<id>`, `agent:<id>`, `run:<id>`)
# orders a queue: one owner's adds run in the order they were sent, other owners' beside them.
Enqueue = Callable[[str, str, str], None]

# Provider failures that pass: the job is worth running again a little later.
TRANSIENT_PROVIDER_ERRORS = frozenset({"provider_timeout", "provider_unavailable", "provider_rate_limited"})


class RetryLaterError(Exception):
    """A job failed for a reason that passes; its event is PENDING again, for the queue to run it later."""

    def __init__(self, event_id: str, reason: str) -> None:
        super().__init__(f"event {event_id} will be retried: {reason}")
        self.event_id = event_id
        self.reason = reason


def is_transient(exc: BaseException) -> bool:
    """A provider that timed out, is down or rate-limited, or a store or index busy past its own retries."""
    if isinstance(exc, BackendBusyError):
        return True
    return isinstance(exc, ProviderError) and exc.code in TRANSIENT_PROVIDER_ERRORS


def queue_job(
    events: EventStore,
    event: PlatformEvent,
    enqueue: Callable[[], None],
    clock: Callable[[], datetime],
    *,
    failed: str,
    unavailable: str,
) -> None:
    """Store a job's PENDING event, then queue it: acknowledged jobs are never lost. A job that cannot be queued
    ends FAILED with `failed` (an event nothing will run must not stay PENDING), and the caller gets a 503
    saying `unavailable`."""
    events.save_event(event)
    try:
        enqueue()
    except Exception as exc:
        log.exception("%s event %s of project %s could not be queued", event.event_type, event.id, event.project_id)
        moment = clock()
        events.save_event(
            event.changed(status=EventStatus.FAILED, error=failed, completed_at=moment, updated_at=moment)
        )
        raise UnavailableError(unavailable) from exc
