"""The projects' retrieval counters (searches, gets: `GET /v1/stats/`) without a write per request.

Without its writer running (on Lambda, which freezes a process between calls) each count is written as it is made.
With it (a Worker of `mnemo serve`), counts add up in memory and the writer writes them, one write per project and
counter, about FLUSH_DELAY seconds after the first of them, instead of a write transaction (and the turn of the
file's one writer) per search. `flush()` writes what waits at once; the statistics flush before they read, so they
count every call made before them. A write that fails puts its counts back to be written with the next ones.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter

from mnemo.ports.tenancy_store import ProjectRecordStore
from mnemo.services.workers import Worker

log = logging.getLogger("mnemo.platform.counts")

FLUSH_DELAY = 0.5  # seconds counts gather before the thread writes them


class RetrievalCounts(Worker):
    name = "retrieval-counts"

    def __init__(self, store: ProjectRecordStore) -> None:
        super().__init__()
        self._store = store
        self._waiting: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()  # guards _waiting
        self._writing = threading.Lock()  # one flush at a time: a flush returns once what it took is written
        self._wake = threading.Event()
        self._deferred = False  # whether counts wait for the writer (it runs)

    def bump(self, project_id: str, name: str) -> None:
        if not self._deferred:
            self._store.bump_counter(project_id, name)
            return
        with self._lock:
            self._waiting[(project_id, name)] += 1
        self._wake.set()

    def flush(self) -> None:
        with self._writing:
            with self._lock:
                taken, self._waiting = self._waiting, Counter()
            written: list[tuple[str, str]] = []
            try:
                for (project_id, name), by in taken.items():
                    self._store.bump_counter(project_id, name, by)
                    written.append((project_id, name))
            except Exception:
                log.exception("could not write the retrieval counters: they wait for the next write")
                for key in written:
                    del taken[key]
                with self._lock:
                    self._waiting.update(taken)

    def close(self) -> None:
        """Stop the writer (if it runs) and write what waits."""
        self.stop(10.0)

    def prepare(self, leader: bool) -> None:
        self._deferred = True

    def run(self, stopping: threading.Event) -> None:
        while not stopping.is_set():
            self._wake.wait()
            self._wake.clear()
            stopping.wait(FLUSH_DELAY)  # let counts gather (a stop cuts it short)
            self.flush()

    def interrupt(self) -> None:
        self._wake.set()

    def finish(self) -> None:
        self._deferred = False
        self.flush()
