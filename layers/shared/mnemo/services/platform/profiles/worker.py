"""The local worker of profiles: the profile service's tasks (generations and jobs) wait in `LocalProfileTasks`, the
profile service's ProfileTaskQueue on the embedded backend, and one Worker runs them one at a time, each when it is
due (on AWS, the profile SQS queue and the ingest worker play this part).

A generation is queued `debounce` seconds after a change, and put back while changes keep coming
(mnemo.services.platform.profiles.service), so a burst of adds costs one generation. Stopping the worker drops what
was still queued: at the next start the jobs left queued or running, and the profiles left pending, are queued again
(`ProfileService.resume`)."""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time

from mnemo.domain.profiles import ProfileTask
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.workers import Worker

logger = logging.getLogger(__name__)


class LocalProfileTasks:
    """The tasks waiting for the local worker, each with the moment it is due."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, ProfileTask]] = []  # (when due, order, task): a heap
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._closed = False

    def dispatch(self, task: ProfileTask, delay: float = 0.0) -> None:
        with self._changed:
            if self._closed:  # the next start queues it again (it is pending, or an unfinished job)
                logger.info("profile worker stopped; a %s task was dropped", task.task)
                return
            heapq.heappush(self._due, (time.monotonic() + max(0.0, delay), next(self._order), task))
            self._changed.notify()

    def idle(self) -> bool:
        """Whether no task is waiting."""
        with self._changed:
            return not self._due

    def open(self) -> None:
        with self._changed:
            self._closed = False

    def close(self) -> None:
        """Drop what waits and take no more until opened again; a waiting `next` returns None."""
        with self._changed:
            self._closed = True
            self._due.clear()
            self._changed.notify_all()

    def next(self, timeout: float | None = None) -> ProfileTask | None:
        """The next due task, waiting for it at most `timeout` seconds (None: until closed); None once closed or
        past the timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while not self._closed:
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return None
                if self._due and self._due[0][0] <= now:
                    return heapq.heappop(self._due)[2]
                wait = self._due[0][0] - now if self._due else None
                if deadline is not None:
                    wait = deadline - now if wait is None else min(wait, deadline - now)
                self._changed.wait(wait)
            return None


class ProfileWorker(Worker):
    name = "profile-worker"

    def __init__(self, profiles: ProfileService, tasks: LocalProfileTasks) -> None:
        """`tasks`: the queue the profile service dispatches to."""
        super().__init__()
        self._profiles = profiles
        self._tasks = tasks

    def idle(self) -> bool:
        return self._tasks.idle()

    def prepare(self, leader: bool) -> None:
        self._tasks.open()
        if leader:  # one process only, when several serve the data dir
            self._profiles.resume()  # what a stop left queued, running or pending

    def run(self, stopping: threading.Event) -> None:
        while not stopping.is_set() and (task := self._tasks.next()) is not None:
            try:
                self._profiles.run_task(task)
            except Exception:  # one task failing does not stop the others
                logger.exception("a profile %s task failed", task.task)

    def interrupt(self) -> None:
        self._tasks.close()  # what was still queued is dropped: the next start queues it again
