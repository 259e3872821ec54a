"""The local worker of profiles: one thread that runs the profile service's tasks (generations and jobs) one at a
time, each when it is due — the profile service's ProfileTaskQueue on the embedded backend (on AWS, the profile
SQS queue and the ingest worker play this part).

A generation is queued `debounce` seconds after a change, and put back while changes keep coming
(mnemo.services.platform.profiles), so a burst of adds costs one generation. Stopping the worker drops what was
still queued: at the next start the jobs left queued or running, and the profiles left pending, are queued again
(`ProfileService.resume`)."""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time

from mnemo.domain.profiles import ProfileTask
from mnemo.services.platform.profiles.service import ProfileService

logger = logging.getLogger(__name__)


class ProfileWorker:
    def __init__(self, profiles: ProfileService) -> None:
        self._profiles = profiles
        self._due: list[tuple[float, int, ProfileTask]] = []  # (when due, order, task): a heap
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._stopped = True
        self._thread: threading.Thread | None = None

    def start(self, *, resume: bool = True) -> None:
        with self._changed:
            self._stopped = False
        self._profiles.tasks = self
        self._thread = threading.Thread(target=self._run, name="mnemo-profile-worker", daemon=True)
        self._thread.start()
        if resume:  # one process only, when several serve the data dir
            self._profiles.resume()  # what a stop left queued, running or pending

    def dispatch(self, task: ProfileTask, delay: float = 0.0) -> None:
        with self._changed:
            if self._stopped:  # the next start queues it again (it is pending, or an unfinished job)
                logger.info("profile worker stopped; a %s task was dropped", task.task)
                return
            heapq.heappush(self._due, (time.monotonic() + max(0.0, delay), next(self._order), task))
            self._changed.notify()

    def idle(self) -> bool:
        """Whether no task is waiting."""
        with self._changed:
            return not self._due

    def _next(self) -> ProfileTask | None:
        """The next due task, waiting for it; None once stopped."""
        with self._changed:
            while not self._stopped:
                if self._due:
                    wait = self._due[0][0] - time.monotonic()
                    if wait <= 0:
                        return heapq.heappop(self._due)[2]
                    self._changed.wait(wait)
                else:
                    self._changed.wait()
            return None

    def _run(self) -> None:
        while (task := self._next()) is not None:
            try:
                self._profiles.run_task(task)
            except Exception:
                logger.exception("a profile %s task failed", task.task)

    def stop(self) -> None:
        with self._changed:
            self._stopped = True
            self._due.clear()
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
