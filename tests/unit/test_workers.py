"""The one worker abstraction (mnemo.services.workers): a crash is logged and the loop restarted after an exponential
backoff, reported unhealthy meanwhile; a stop honours its deadline and always finishes; the supervisor starts the
leader-only workers in the leader alone and stops every worker in the reverse order."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from mnemo.services.workers import Backoff, Supervisor, Worker, WorkerState

WAIT = 10.0  # seconds a test waits for a thread to get somewhere (never reached when all goes well)


class Crashing(Worker):
    """Raises on its first `crashes` runs, then runs until stopped."""

    name = "crashing"

    def __init__(self, crashes: int, backoff: Backoff) -> None:
        super().__init__(backoff=backoff)
        self.crashes = crashes
        self.runs = 0
        self.crashed = threading.Event()
        self.running_again = threading.Event()
        self.finished = 0

    def run(self, stopping: threading.Event) -> None:
        self.runs += 1
        if self.runs <= self.crashes:
            self.crashed.set()
            raise RuntimeError(f"crash {self.runs}")
        self.running_again.set()
        stopping.wait()

    def finish(self) -> None:
        self.finished += 1


class Stubborn(Worker):
    """Does not look at `stopping`: it ends only when released."""

    name = "stubborn"

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.started = threading.Event()
        self.finished = False

    def run(self, stopping: threading.Event) -> None:
        self.started.set()
        self.release.wait(WAIT)

    def finish(self) -> None:
        self.finished = True


class Recorded(Worker):
    def __init__(self, name: str, log: list[str], *, leader_only: bool = False) -> None:
        super().__init__()
        self.name = name
        self.leader_only = leader_only
        self._log = log

    def prepare(self, leader: bool) -> None:
        self._log.append(f"start {self.name} leader={leader}")

    def run(self, stopping: threading.Event) -> None:
        stopping.wait()

    def finish(self) -> None:
        self._log.append(f"stop {self.name}")


def test_the_backoff_doubles_after_each_crash_up_to_its_longest() -> None:
    backoff = Backoff(first=0.5, longest=3.0)
    assert [backoff.after(n) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_a_crashed_worker_is_unhealthy_until_its_backoff_has_passed() -> None:
    # Given a worker that crashes once, with a backoff no test waits for
    worker = Crashing(1, Backoff(first=3600.0))
    # When it runs and crashes
    worker.start()
    try:
        assert worker.crashed.wait(WAIT)
        state = _settled(worker, lambda: worker.state().restarts == 1)
        # Then it is reported unhealthy, with its error, and waits to run again
        assert not state.healthy and state.running
        assert state.last_error == "RuntimeError: crash 1"
        assert not worker.running_again.is_set()
    finally:
        assert worker.stop(WAIT)  # a stop cuts the backoff short


def test_a_crashed_worker_is_restarted_and_healthy_again() -> None:
    # Given a worker that crashes twice, with a short backoff
    worker = Crashing(2, Backoff(first=0.01, longest=0.02))
    # When it runs
    worker.start()
    try:
        # Then its loop runs again after each crash, and it is healthy once it does
        assert worker.running_again.wait(WAIT)
        state = _settled(worker, lambda: worker.healthy)
        assert state.healthy and state.restarts == 2 and worker.runs == 3
    finally:
        worker.stop(WAIT)
    assert worker.finished == 1


def test_a_stop_honours_its_deadline_and_finishes_all_the_same() -> None:
    # Given a worker whose loop does not look at `stopping`
    worker = Stubborn()
    worker.start()
    assert worker.started.wait(WAIT)
    # When it is stopped with a short deadline
    stopped = worker.stop(0.05)
    # Then the stop returns without it, says so, and the worker has finished (what waits is written)
    assert stopped is False and worker.finished
    worker.release.set()


def test_a_worker_never_started_finishes_when_stopped() -> None:
    worker = Stubborn()
    assert worker.stop(1.0) is True and worker.finished and not worker.running


def test_the_supervisor_starts_the_leader_only_workers_in_the_leader_alone_and_stops_in_reverse() -> None:
    log: list[str] = []
    supervisor = Supervisor([Recorded("writer", log), Recorded("relay", log, leader_only=True), Recorded("jobs", log)])
    # A process that is not the leader
    supervisor.start(leader=False)
    assert log == ["start writer leader=False", "start jobs leader=False"]
    assert [s.name for s in supervisor.states() if s.running] == ["writer", "jobs"]
    assert supervisor.stop(WAIT)
    assert log[2:] == ["stop jobs", "stop relay", "stop writer"]  # every worker finishes, started or not
    # The leader
    log.clear()
    supervisor.start(leader=True)
    assert log == ["start writer leader=True", "start relay leader=True", "start jobs leader=True"]
    assert supervisor.healthy()
    supervisor.stop(WAIT)


def test_the_supervisor_is_unhealthy_while_a_worker_waits_to_restart() -> None:
    crashing = Crashing(1, Backoff(first=3600.0))
    supervisor = Supervisor([crashing])
    supervisor.start()
    try:
        assert crashing.crashed.wait(WAIT)
        _settled(crashing, lambda: not crashing.healthy)
        assert not supervisor.healthy()
        assert supervisor.worker("crashing") is crashing
    finally:
        supervisor.stop(WAIT)


def _settled(worker: Worker, done: Callable[[], bool]) -> WorkerState:
    """The worker's state once `done()` holds (its thread sets the state just after the event the test waited on)."""
    finished = threading.Event()
    for _ in range(1000):
        if done():
            return worker.state()
        finished.wait(0.01)
    pytest.fail(f"{worker.name} did not settle")
