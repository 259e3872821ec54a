"""Recording retrievals without slowing search: the accesses a decayed search records wait in memory, and are
written to their namespace's AccessLog in batches, off the request path.

`AccessBuffer.buffered(log)` wraps a namespace's log: `record` only appends to the buffer (no I/O), `recent` reads
the log and adds what still waits (so a process always sees its own retrievals at once), `forget` and `clear` drop
what waits too. What waits is written by:

- its writer (`start()`: the buffer is a Worker of the embedded backend's `mnemo serve`), woken by each record and
  writing everything that waits about FLUSH_DELAY seconds later, one batch per namespace;
- `writing_behind()`: on Lambda, where a process is frozen between invocations and may be retired while frozen,
  around each invocation: what earlier invocations recorded is written by a worker while this one runs, and the
  invocation waits for that write before it returns (a frozen thread would hold a half-made request). A search
  never waits for its own reinforcement; an invocation waits only for what its own work did not cover (one
  batched write of the previous invocation's accesses). An environment retired before its next invocation loses
  the accesses of its last one: a reinforcement is best effort, as the reference's is fire-and-forget;
- `flush()`: now, in the caller's thread (tests, benchmarks, and at close).

A write that fails is logged and its accesses dropped (a ranking signal must never fail a request). At most
MAX_WAITING memories' accesses wait; past that, new ones are dropped until a write makes room.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime

from mnemo.ports.memory_access import AccessLog, merged
from mnemo.services.workers import Worker

log = logging.getLogger("mnemo.access")

FLUSH_DELAY = 1.0  # seconds the background thread lets records gather before it writes them
MAX_WAITING = 100_000  # memories whose accesses may wait at once
WAIT_FOR_WRITE = 5.0  # seconds an invocation waits, at most, for the write behind it

Waiting = dict[str, list[datetime]]  # access times by memory id


class BufferedAccessLog:
    """A namespace's AccessLog whose records wait in an AccessBuffer (see the module's docstring)."""

    def __init__(self, log: AccessLog, buffer: AccessBuffer) -> None:
        self.log = log
        self._buffer = buffer

    def record(self, accesses: Mapping[str, Sequence[datetime]]) -> None:
        self._buffer.add(self, accesses)

    def recent(self, memory_ids: Sequence[str]) -> dict[str, list[datetime]]:
        """The log's accesses and those still waiting. What waits is looked at first: a write that ends between the
        two reads then shows its accesses in both, and they are counted once (not missed)."""
        waiting = self._buffer.waiting(self, memory_ids)
        found = self.log.recent(memory_ids)
        for memory_id, times in waiting.items():
            stored = Counter(found.get(memory_id, []))
            unwritten = [t for t in times if not _taken(stored, t)]
            found[memory_id] = merged(found.get(memory_id, []), unwritten)
        return found

    def forget(self, memory_ids: Sequence[str]) -> None:
        self._buffer.drop(self, memory_ids)
        self.log.forget(memory_ids)

    def clear(self) -> None:
        self._buffer.drop(self, None)
        self.log.clear()

    def discard(self) -> None:
        """Drop what waits for this log, unwritten (its namespace was dropped)."""
        self._buffer.drop(self, None)


class AccessBuffer(Worker):
    name = "access-writer"

    def __init__(self, *, max_waiting: int = MAX_WAITING, delay: float = FLUSH_DELAY) -> None:
        super().__init__()
        self._max_waiting = max_waiting
        self._delay = delay
        self._waiting: dict[BufferedAccessLog, Waiting] = {}
        self._writing: dict[BufferedAccessLog, Waiting] = {}  # taken for a write that has not ended yet
        self._count = 0  # memories waiting
        self._dropped = 0  # accesses dropped since the last warning
        self._changed = threading.Condition()
        self._write_lock = threading.Lock()  # one write at a time: a later batch never lands before an earlier one

    def buffered(self, log: AccessLog) -> BufferedAccessLog:
        return BufferedAccessLog(log, self)

    # ---- what the buffered logs call ----

    def add(self, owner: BufferedAccessLog, accesses: Mapping[str, Sequence[datetime]]) -> None:
        with self._changed:
            waiting = self._waiting.setdefault(owner, {})
            for memory_id, times in accesses.items():
                if memory_id not in waiting:
                    if self._count >= self._max_waiting:
                        self._dropped += len(times)
                        continue
                    self._count += 1
                waiting[memory_id] = merged(waiting.get(memory_id, []), times)
            self._changed.notify_all()
        if self._dropped:
            self._warn_dropped()

    def waiting(self, owner: BufferedAccessLog, memory_ids: Sequence[str]) -> Waiting:
        """The accesses of these memories not written yet (waiting, or in a write under way)."""
        with self._changed:
            out: Waiting = {}
            for source in (self._writing.get(owner, {}), self._waiting.get(owner, {})):
                for memory_id in memory_ids:
                    times = source.get(memory_id)
                    if times:
                        out[memory_id] = merged(out.get(memory_id, []), times)
            return out

    def drop(self, owner: BufferedAccessLog, memory_ids: Sequence[str] | None) -> None:
        """Forget what waits for these memories of `owner` (all of its memories with None)."""
        with self._changed:
            waiting = self._waiting.get(owner, {})
            doomed = list(waiting) if memory_ids is None else [i for i in memory_ids if i in waiting]
            for memory_id in doomed:
                del waiting[memory_id]
            self._count -= len(doomed)
            if not waiting:
                self._waiting.pop(owner, None)

    # ---- writing ----

    def pending(self) -> int:
        """How many memories have accesses waiting."""
        with self._changed:
            return self._count

    def flush(self) -> int:
        """Write everything that waits now, in this thread; the number of memories written for."""
        with self._write_lock:
            with self._changed:
                batch, self._waiting, self._count = self._waiting, {}, 0
                self._writing = batch
            try:
                for owner, accesses in batch.items():
                    _write(owner, accesses)
            finally:
                with self._changed:
                    self._writing = {}
        return sum(len(accesses) for accesses in batch.values())

    @contextmanager
    def writing_behind(self) -> Iterator[None]:
        """Around one Lambda invocation: what waits is written by a worker while the invocation runs, and the
        invocation ends once that write has (WAIT_FOR_WRITE at most)."""
        if self.pending() == 0:
            yield
            return
        writer = WriteBehind(self)
        writer.start()
        try:
            yield
        finally:
            if not writer.stop(WAIT_FOR_WRITE):
                log.warning("writing the accesses took over %.0f s: the invocation ends without it", WAIT_FOR_WRITE)

    def close(self) -> None:
        """Stop the writer (if it runs), and write what waits."""
        self.stop(30.0)

    def run(self, stopping: threading.Event) -> None:
        """The writer of a long-running process (`mnemo serve`): woken by each record, it lets a burst gather for
        `delay` seconds, then writes everything that waits."""
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._count > 0 or stopping.is_set())
                if stopping.is_set():
                    return
                self._changed.wait_for(stopping.is_set, timeout=self._delay)  # let a burst gather
                if stopping.is_set():
                    return  # finish() writes what waits
            self.flush_logged()

    def interrupt(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def finish(self) -> None:
        self.flush_logged()

    def flush_logged(self) -> None:
        try:
            self.flush()
        except Exception:  # the writes log their own failures; this is a guard for the thread
            log.exception("writing recorded accesses failed")

    def _warn_dropped(self) -> None:
        with self._changed:
            dropped, self._dropped = self._dropped, 0
        if dropped:
            log.warning("%d accesses dropped: %d memories already wait to be written", dropped, self._max_waiting)


class WriteBehind(Worker):
    """One write of what waits in an AccessBuffer, beside a Lambda invocation (AccessBuffer.writing_behind)."""

    name = "access-write-behind"

    def __init__(self, buffer: AccessBuffer) -> None:
        super().__init__()
        self._buffer = buffer

    def run(self, stopping: threading.Event) -> None:
        self._buffer.flush_logged()


def _taken(stored: Counter[datetime], moment: datetime) -> bool:
    """Whether `moment` is among the stored accesses (each stored one matches one waiting one at most)."""
    if stored[moment] > 0:
        stored[moment] -= 1
        return True
    return False


def _write(owner: BufferedAccessLog, accesses: Waiting) -> None:
    try:
        owner.log.record(accesses)
    except Exception:  # a ranking signal must never fail anything; the accesses are lost
        log.exception("could not write the accesses of %d memories", len(accesses))
