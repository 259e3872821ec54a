"""The API call log: entries are queued by the HTTP layer and written in batches by the service's writer (a Worker
of `mnemo serve`), so a request never waits for the write; entries older than the retention period are pruned every
hour. The writer lets a batch gather for up to LINGER_SECONDS (or BATCH entries) before it writes, rather than one
transaction per request; `flush` (a read of the log, closing) writes at once. Without the writer running (as on
Lambda, which freezes a process between calls) each entry is written as its request ends, and expiry is the
store's (a TTL)."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta

from mnemo.domain.memory import now
from mnemo.domain.request_log import RequestLogEntry
from mnemo.ports.request_log_store import RequestLogStore
from mnemo.services.workers import Worker

log = logging.getLogger("mnemo.request_log")

PRUNE_EVERY_SECONDS = 3600.0
BATCH = 500
LINGER_SECONDS = 0.05


class RequestLogService(Worker):
    name = "request-log"

    def __init__(
        self,
        store: RequestLogStore,
        retention_days: int,
        *,
        clock: Callable[[], datetime] = now,
    ) -> None:
        super().__init__()
        self.store = store
        self.retention = timedelta(days=retention_days)
        self._clock = clock
        self._pending: deque[RequestLogEntry] = deque()
        self._changed = threading.Condition()
        self._submitted = 0
        self._settled = 0
        self._closing = False
        self._flushing = 0  # callers of flush() waiting: the writer does not linger for them
        self._last_prune = time.monotonic()
        self._deferred = False  # whether entries wait for the writer (it runs)

    def submit(self, entry: RequestLogEntry) -> None:
        """Queue an entry; it is written shortly after (at once when the writer does not run)."""
        if not self._deferred:  # written now, as the request ends (on Lambda: before the invocation returns)
            try:
                self.store.append([entry])
            except Exception:  # a log write must never fail the request it records
                log.exception("could not write a request log entry")
            return
        with self._changed:
            self._pending.append(entry)
            self._submitted += 1
            if len(self._pending) in (1, BATCH):  # the writer waits for a first entry, then for a full batch
                self._changed.notify_all()

    def recent(self, limit: int) -> list[RequestLogEntry]:
        """The newest entries, newest first, including every entry submitted before the call."""
        self.flush()
        return self.store.recent(limit)

    def prune(self) -> int:
        removed = self.store.prune(self._clock() - self.retention)
        if removed:
            log.info("pruned %d request log entries older than %d days", removed, self.retention.days)
        return removed

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every entry submitted so far is written (or dropped after a failed write)."""
        if not self._deferred:
            return True
        with self._changed:
            target = self._submitted
            self._flushing += 1
            self._changed.notify_all()
            try:
                return self._changed.wait_for(lambda: self._settled >= target, timeout=timeout)
            finally:
                self._flushing -= 1

    def close(self) -> None:
        """Stop the writer (if it runs), once it has written what waits."""
        self.stop(10.0)

    def prepare(self, leader: bool) -> None:
        with self._changed:
            self._closing = False
            self._deferred = True

    def interrupt(self) -> None:
        with self._changed:
            self._closing = True
            self._changed.notify_all()

    def finish(self) -> None:
        with self._changed:
            self._deferred = False
            left = list(self._pending)
            self._pending.clear()
        if left:  # a writer stopped before its last batch (or past its deadline): written now
            self._append(left)
        with self._changed:
            self._settled += len(left)
            self._changed.notify_all()

    def _batch_due(self) -> bool:
        return len(self._pending) >= BATCH or self._closing or self._flushing > 0

    def run(self, stopping: threading.Event) -> None:
        """The writer: a batch as soon as one is due (a full one, a flush waiting, closing) or LINGER_SECONDS after
        its first entry; the log pruned every PRUNE_EVERY_SECONDS; its last batch written before it returns."""
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._pending) or self._closing, timeout=PRUNE_EVERY_SECONDS)
                if self._pending:
                    self._changed.wait_for(self._batch_due, timeout=LINGER_SECONDS)
                batch = [self._pending.popleft() for _ in range(min(BATCH, len(self._pending)))]
                closing = self._closing and not self._pending
            if batch:
                self._append(batch)
                with self._changed:
                    self._settled += len(batch)
                    self._changed.notify_all()
            if time.monotonic() - self._last_prune >= PRUNE_EVERY_SECONDS:
                self._last_prune = time.monotonic()
                try:
                    self.prune()
                except Exception:
                    log.exception("could not prune the request log")
            if closing:
                return

    def _append(self, batch: list[RequestLogEntry]) -> None:
        try:
            self.store.append(batch)
        except Exception:  # a log write must never take the service down; the entries are dropped
            log.exception("could not write %d request log entries", len(batch))
