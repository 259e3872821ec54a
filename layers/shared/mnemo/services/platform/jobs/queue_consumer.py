"""What a queue worker (the ingest function on AWS) does with each message it receives: the job it names is run
through the JobRouter, and its summary (ids and statuses, never text) is what the jobs table keeps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo.domain.tenancy import PlatformEvent
from mnemo.services.platform.jobs.queue_messages import AddJob
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.platform.tenancy.events import DREAM, IMPORT, event_id_of


class JobService:
    """What a queue worker does with each message it receives."""

    def __init__(self, router: JobRouter, *, max_attempts: int = 1) -> None:
        self._router = router
        self._max_attempts = max_attempts

    def run(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Run the job a message names; its summary (ids and status, never text) is what a jobs table keeps.
        Before the event's last attempt, an error that passes raises RetryLaterError (the queue delivers the job
        again); a message that is not a job is a ValidationError."""
        job = AddJob.from_json(raw)
        event = self._router.process(job.project_id, job.event_id, max_attempts=self._max_attempts)
        return {
            "job_id": job.job_id,
            "event_id": event_id_of(job.event_id),
            "status": None if event is None else event.status.value,
            "results": [] if event is None else _summary(event),
        }


def _summary(event: PlatformEvent) -> list[dict[str, Any]]:
    """An event's results without text: an add's memories (id, event), an import's items (index, status), a Dream
    run's users (user_id, status)."""
    keys = {IMPORT: ("index", "status"), DREAM: ("user_id", "status")}.get(event.event_type, ("id", "event"))
    return [{key: r.get(key) for key in keys} for r in event.results]
