"""The API call log: entries are queued by the HTTP layer and written in batches by one background thread,
so a request never waits for the write; entries older than the retention period are pruned every hour. The
thread lets a batch gather for up to LINGER_SECONDS (or BATCH entries) before it writes: one transaction per
request cost ~0.2 ms of CPU per request under load; `flush` (a read of the log, closing) writes at once.
Without the thread (`background=False`, as on Lambda, which freezes a process between calls) each entry is
written as its request ends, and expiry is the store's (a TTL)."""

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

log = logging.getLogger("mnemo.request_log")

PRUNE_EVERY_SECONDS = 3600.0
BATCH = 500
LINGER_SECONDS = 0.05


class RequestLogService:
    def __init__(
        self,
        store: RequestLogStore,
        retention_days: int,
        *,
        background: bool = True,
        clock: Callable[[], datetime] = now,
    ) -> None:
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
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._run, name="mnemo-request-log", daemon=True)
            self._thread.start()

    def submit(self, entry: RequestLogEntry) -> None:
        """Queue an entry; it is written shortly after (at once when there is no background thread)."""
        if self._thread is None:  # written now, as the request ends (on Lambda: before the invocation returns)
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
        if self._thread is None:
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
        if self._thread is None:
            return
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        self._thread.join(timeout=10)

    def _batch_due(self) -> bool:
        return len(self._pending) >= BATCH or self._closing or self._flushing > 0

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._pending) or self._closing, timeout=PRUNE_EVERY_SECONDS)
                if self._pending:
                    self._changed.wait_for(self._batch_due, timeout=LINGER_SECONDS)
                batch = [self._pending.popleft() for _ in range(min(BATCH, len(self._pending)))]
                closing = self._closing and not self._pending
            if batch:
                try:
                    self.store.append(batch)
                except Exception:  # a log write must never take the service down; the entries are dropped
                    log.exception("could not write %d request log entries", len(batch))
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
