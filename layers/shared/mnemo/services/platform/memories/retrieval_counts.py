"""The projects' retrieval counters (searches, gets: `GET /v1/stats/`) without a write per request.

Without `start()` (on Lambda, which freezes a process between calls) each count is written as it is made, as
before. With it (`mnemo serve`), counts add up in memory and a background thread writes them, one write per
project and counter, about FLUSH_DELAY seconds after the first of them: a search of the platform surface spent a
write transaction (~0.5 ms of CPU, and the turn of the file's one writer) on its counter. `flush()` writes what
waits at once; the statistics flush before they read, so they count every call made before them. A write that
fails puts its counts back to be written with the next ones.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter

from mnemo.ports.tenancy_store import ProjectRecordStore

log = logging.getLogger("mnemo.platform.counts")

FLUSH_DELAY = 0.5  # seconds counts gather before the thread writes them


class RetrievalCounts:
    def __init__(self, store: ProjectRecordStore) -> None:
        self._store = store
        self._waiting: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()  # guards _waiting
        self._writing = threading.Lock()  # one flush at a time: a flush returns once what it took is written
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def bump(self, project_id: str, name: str) -> None:
        if self._thread is None:
            self._store.bump_counter(project_id, name)
            return
        with self._lock:
            self._waiting[(project_id, name)] += 1
        self._wake.set()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mnemo-retrieval-counts", daemon=True)
            self._thread.start()

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
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            self._wake.set()
            thread.join(timeout=10)
        self.flush()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            self._stop.wait(FLUSH_DELAY)  # let counts gather (a close cuts it short)
            self.flush()
