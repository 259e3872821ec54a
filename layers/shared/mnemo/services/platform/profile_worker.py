"""The local worker of profiles: one thread that runs the generations and jobs in the order they were queued (the
profile service's `run_later`), and one that regenerates stale profiles after memory changes. Every memory change
wakes it (`wake`, called by the namespaces' outbox writes); once the changes have been quiet for `debounce` seconds
it asks the profile service to queue the regenerations (`refresh_stale`), so a burst of adds costs one generation
per user. Stopping it drops what was still queued: at the next start the jobs left queued or running run again
from the start, and a profile left `pending` is queued again by the first sweep (or a read)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from mnemo.services.platform.profiles import ProfileService

logger = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 2.0


class ProfileWorker:
    def __init__(self, profiles: ProfileService, debounce: float = DEBOUNCE_SECONDS) -> None:
        self._profiles = profiles
        self.debounce = debounce
        self._executor: ThreadPoolExecutor | None = None
        self._changed = threading.Event()
        self._stopped = threading.Event()
        self._sweeper: threading.Thread | None = None

    def start(self) -> None:
        self._stopped.clear()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnemo-profile-worker")
        self._profiles.run_later = self.submit
        self._profiles.resume_jobs()  # what a stop left queued or running
        self._sweeper = threading.Thread(target=self._sweep, name="mnemo-profile-sweeper", daemon=True)
        self._sweeper.start()
        self._changed.set()  # a first sweep: what changed while the server was down

    def wake(self) -> None:
        """Memories changed somewhere."""
        self._changed.set()

    def submit(self, task: Callable[[], None]) -> None:
        executor = self._executor
        if executor is None:
            task()
            return
        try:
            executor.submit(self._run, task)
        except RuntimeError:  # shut down meanwhile: the next sweep or read queues it again
            logger.info("profile worker stopped; a task was dropped")

    @staticmethod
    def _run(task: Callable[[], None]) -> None:
        try:
            task()
        except Exception:
            logger.exception("a profile task failed")

    def _sweep(self) -> None:
        while not self._stopped.is_set():
            if not self._changed.wait(timeout=1.0):
                continue
            # The debounce: wait until no change came for `debounce` seconds.
            self._changed.clear()
            while not self._stopped.wait(self.debounce) and self._changed.is_set():
                self._changed.clear()
            if self._stopped.is_set():
                return
            try:
                self._profiles.refresh_stale()
            except Exception:
                logger.exception("the sweep of stale profiles failed")

    def stop(self) -> None:
        self._stopped.set()
        if self._sweeper is not None:
            self._sweeper.join(timeout=5)
            self._sweeper = None
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
