"""Queueing again the jobs whose message was lost: every add, import and Dream run still PENDING or RUNNING that
has not changed for a while (the local worker's start, `mnemo platform resume` on AWS)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from mnemo.domain.memory import now
from mnemo.domain.tenancy import PlatformEvent
from mnemo.errors import ValidationError
from mnemo.ports.tenancy_store import EventStore
from mnemo.services.commands import AddCommand
from mnemo.services.platform.dream.runs import DREAM_OWNER
from mnemo.services.platform.jobs.import_results import owner_of
from mnemo.services.platform.jobs.queueing import Enqueue
from mnemo.services.platform.tenancy.events import ADD, DREAM, IMPORT

log = logging.getLogger("mnemo.platform.jobs")


def requeue_unfinished(
    events: EventStore, enqueue: Enqueue, older_than: timedelta, clock: Callable[[], datetime] = now
) -> list[PlatformEvent]:
    """Queue again every add, import and Dream run event still PENDING or RUNNING that has not changed for
    `older_than`: one whose message was lost (a worker that died on its last attempt, a dead-lettered message
    redriven elsewhere). Running an event twice is safe: a finished one is skipped, a rerun add finds what it stored,
    and a rerun import or Dream run goes on from the items or users it recorded (`mnemo platform resume`). Returns
    the events queued."""
    cutoff = clock() - older_than
    stale = [e for e in events.unfinished_events() if e.event_type in (ADD, IMPORT, DREAM) and e.updated_at <= cutoff]
    for event in stale:
        enqueue(event.project_id, event.id, _owner(event))
    return stale


def _owner(event: PlatformEvent) -> str:
    if event.event_type == IMPORT:
        return owner_of(event.id)
    if event.event_type == DREAM:
        return DREAM_OWNER
    try:
        return AddCommand.from_json(event.payload).scope.owner()
    except ValidationError:  # a payload this version would refuse: it still runs (and says so), ownerless
        log.warning("add event %s of project %s: payload unreadable, queued as ownerless", event.id, event.project_id)
        return "none"
