"""The one shape of background work: a `Worker` is a loop in a thread of its own, started and stopped with a
deadline, whose crash is logged and restarted after an exponential backoff (reported unhealthy until it runs
again); a `Supervisor` owns every worker of a process (what `mnemo serve` runs: queue drains, schedules, write-behind
buffers), starts them in order, the leader-only ones only in the process that holds the data dir's lease, and stops
them in the reverse order within one deadline.

A worker's class gives its loop (`run`, which returns once `stopping` is set) and, where it needs them, what to do
before the loop starts (`prepare`: requeue, resume), how to wake a loop that waits on something of its own
(`interrupt`), and what to do once it has stopped (`finish`: write what waits, close a client; run by every stop,
started or not). Threads are daemons: a deadline that passes leaves the thread behind, not the process."""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

log = logging.getLogger("mnemo.workers")


@dataclass(frozen=True, slots=True)
class Backoff:
    """Seconds before a crashed loop runs again: `first`, doubled after each crash in a row, at most `longest`."""

    first: float = 1.0
    longest: float = 60.0

    def after(self, crashes: int) -> float:
        return min(self.longest, self.first * 2.0 ** max(0, crashes - 1))


@dataclass(frozen=True, slots=True)
class WorkerState:
    name: str
    running: bool  # its thread is alive
    healthy: bool  # False from a crash until its loop runs again
    restarts: int  # crashes since it started
    last_error: str | None  # the last crash, as "<type>: <message>"


class Worker(ABC):
    name = "worker"
    leader_only = False  # runs only in the process that holds the data dir's lease

    def __init__(self, *, backoff: Backoff | None = None) -> None:
        self.stopping = threading.Event()
        self._backoff = backoff or Backoff()
        self._thread: threading.Thread | None = None
        self._healthy = True
        self._restarts = 0
        self._last_error: str | None = None

    # ---- what a worker's class gives ----

    @abstractmethod
    def run(self, stopping: threading.Event) -> None:
        """The loop: returns once `stopping` is set. An exception is a crash: logged, and the loop runs again."""

    def prepare(self, leader: bool) -> None:
        """Before the loop starts (`leader`: this process holds the data dir's lease)."""
        return None

    def interrupt(self) -> None:
        """Wake the loop so that it sees `stopping` (a worker that waits on something of its own)."""
        return None

    def finish(self) -> None:
        """Once the loop has stopped (or was never started): write what waits, close what it holds."""
        return None

    # ---- starting and stopping ----

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def healthy(self) -> bool:
        return self._healthy

    def state(self) -> WorkerState:
        return WorkerState(self.name, self.running, self._healthy, self._restarts, self._last_error)

    def start(self, *, leader: bool = True) -> None:
        if self.running:
            return
        self.stopping.clear()
        self._healthy, self._restarts, self._last_error = True, 0, None
        self.prepare(leader)
        self._thread = threading.Thread(target=self._supervised, name=f"mnemo-{self.name}", daemon=True)
        self._thread.start()

    def stop(self, deadline: float = 30.0) -> bool:
        """Stop the loop and wait for it at most `deadline` seconds, then `finish`; whether it stopped in time."""
        self.stopping.set()
        self.interrupt()
        thread, self._thread = self._thread, None
        stopped = True
        if thread is not None:
            thread.join(max(0.0, deadline))
            stopped = not thread.is_alive()
            if not stopped:
                log.warning("worker %s did not stop within %.1f s", self.name, deadline)
        self.finish()
        return stopped

    def _supervised(self) -> None:
        while not self.stopping.is_set():
            try:
                self.run(self.stopping)
                return
            except Exception as exc:
                self._restarts += 1
                self._healthy, self._last_error = False, f"{type(exc).__name__}: {exc}"
                delay = self._backoff.after(self._restarts)
                log.exception("worker %s crashed; restarting in %.1f s", self.name, delay)
                if self.stopping.wait(delay):
                    return
                self._healthy = True


class Supervisor:
    """Every worker of a process, in the order they start (they stop in the reverse order)."""

    def __init__(self, workers: Sequence[Worker] = ()) -> None:
        self._workers = tuple(workers)

    def start(self, *, leader: bool = True) -> None:
        """Start each worker; the leader-only ones only in the `leader` process."""
        for worker in self._workers:
            if leader or not worker.leader_only:
                worker.start(leader=leader)

    def stop(self, deadline: float = 30.0) -> bool:
        """Stop every worker (started or not: each finishes) within `deadline` seconds in all; whether all did."""
        end = time.monotonic() + deadline
        stopped = [worker.stop(end - time.monotonic()) for worker in reversed(self._workers)]
        return all(stopped)

    def worker(self, name: str) -> Worker:
        return next(w for w in self._workers if w.name == name)

    def states(self) -> list[WorkerState]:
        return [worker.state() for worker in self._workers]

    def healthy(self) -> bool:
        return all(worker.healthy for worker in self._workers)
