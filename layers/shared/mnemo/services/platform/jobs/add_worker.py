"""The local worker of asynchronous platform jobs: a Worker (services/workers.py) that runs queued events one at a
time through the JobRouter, in the order they were queued (on AWS the ingest worker function does this, from SQS)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from mnemo.domain.memory import now
from mnemo.ports.tenancy_store import EventStore
from mnemo.services.platform.jobs.queueing import Enqueue, RetryLaterError
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.workers import Worker


class _Received(Protocol):
    @property
    def body(self) -> dict[str, Any]: ...


class LocalQueue(Protocol):
    """What the local worker needs of a queue (mnemo.adapters.inprocess.queue.InProcessQueue)."""

    def send(self, message: Mapping[str, Any], *, group: str | None = None, dedup_id: str | None = None) -> str: ...

    def receive(self, max_messages: int = 10, wait_seconds: float = 0.0) -> Sequence[_Received]: ...

    def wake(self) -> None: ...

    def __len__(self) -> int: ...


def local_enqueuer(queue: LocalQueue) -> Enqueue:
    """How the jobs queue an event for the local worker: one queue, run in order (the owner does not matter)."""

    def enqueue(project_id: str, event_id: str, _owner: str = "") -> None:
        queue.send({"project_id": project_id, "event_id": event_id})

    return enqueue


LOCAL_RETRY_DELAYS = (1.0, 2.0, 4.0, 8.0)  # seconds before each new attempt after an error that passes


class AddWorker(Worker):
    """Runs queued add events; an add that fails for a reason that passes is tried again after each of
    `retry_delays`, before the next one. At start every PENDING or RUNNING event is queued again (by the leader
    only, when several processes serve the data dir), so a job survives a restart."""

    name = "platform-worker"

    def __init__(
        self,
        router: JobRouter,
        events: EventStore,
        queue: LocalQueue,
        retry_delays: Sequence[float] = LOCAL_RETRY_DELAYS,
    ) -> None:
        """`queue`: where the jobs' `local_enqueuer` puts them."""
        super().__init__()
        self._router = router
        self._events = events
        self._queue = queue
        self._enqueue = local_enqueuer(queue)
        self._retry_delays = tuple(retry_delays)

    def enqueue(self, project_id: str, event_id: str, owner: str = "") -> None:
        self._enqueue(project_id, event_id, owner)

    def prepare(self, leader: bool) -> None:
        """The leader queues again every event a stop left unfinished."""
        for event in self._events.unfinished_events() if leader else ():
            self.enqueue(event.project_id, event.id)

    def interrupt(self) -> None:
        self._queue.wake()  # a stop does not wait for the queue's poll to end

    def run(self, stopping: threading.Event) -> None:
        while not stopping.is_set():
            for message in self._queue.receive(max_messages=10, wait_seconds=0.2):
                if stopping.is_set():
                    return
                self._process(message.body["project_id"], message.body["event_id"])

    def _process(self, project_id: str, event_id: str) -> None:
        """Run the event, and again after each delay while it fails for a reason that passes (its attempts are
        counted in the event: the last one ends it FAILED rather than raising)."""
        attempts = len(self._retry_delays) + 1
        for delay in (*self._retry_delays, 0.0):
            try:
                self._router.process(project_id, event_id, max_attempts=attempts)
                return
            except RetryLaterError:
                if self.stopping.wait(delay):
                    return  # stopping: the event is PENDING, and queued again at the next start

    def drain(self, timeout: float = 30.0) -> None:
        """Wait until the queue is empty (tests and shutdown)."""
        deadline = now().timestamp() + timeout
        while len(self._queue) and now().timestamp() < deadline:
            self.stopping.wait(0.05)
