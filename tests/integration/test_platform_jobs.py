"""How a platform add job ends when its provider fails: an error that passes (throttled, timing out, down) is
tried again, in order, before the project's next add; one that does not pass, or the last attempt, ends the event
FAILED; an add that cannot be queued is a 503 and its event FAILED, never PENDING forever."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from mnemo.adapters.inprocess.queue import InProcessQueue
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.domain.memory import Scope, new_id, now
from mnemo.domain.tenancy import EventStatus, Organization, PlatformUser, Project
from mnemo.errors import ProviderError, UnavailableError, ValidationError
from mnemo.ports.memory_namespaces import MemoryNamespaces
from mnemo.services.commands import AddCommand, AddResult, Message
from mnemo.services.platform.memories import AddRequest, AddWorker, Enqueue, ProjectMemories


class ScriptedEngine:
    """A project's memory service whose adds fail as scripted, then succeed (storing nothing)."""

    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.calls = 0

    def add(self, command: AddCommand) -> list[AddResult]:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return []


class OneEngine:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.dropped: list[str] = []

    def memories(self, namespace: str) -> Any:
        return self.engine

    def drop(self, namespace: str) -> None:
        self.dropped.append(namespace)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[SqliteTenancyStore, Project]]:
    database = Database(tmp_path / "tenancy.sqlite3")
    store = SqliteTenancyStore(database)
    owner = store.add_user(PlatformUser(new_id(), "owner@example.com", now()))
    org = Organization(f"org_{new_id()[:8]}", "acme", now(), now())
    store.add_org(org, owner)
    project = Project(id=f"proj_{new_id()[:8]}", org_id=org.id, name="p", created_at=now(), updated_at=now())
    store.add_project(project, owner)
    yield store, project
    database.close()


THROTTLED = ProviderError("Provider rate limit hit. Retry shortly.", "provider_rate_limited")
DOWN = ProviderError("Provider is unreachable or returned a server error.", "provider_unavailable")


def run_one(
    setup: tuple[SqliteTenancyStore, Project], failures: list[Exception]
) -> tuple[EventStatus, str | None, int]:
    store, project = setup
    engine = ScriptedEngine(failures)
    memories = ProjectMemories(cast(MemoryNamespaces, OneEngine(engine)), store)
    worker = AddWorker(memories, InProcessQueue(), retry_delays=(0.0, 0.0))  # three attempts in all
    worker.start()
    try:
        request = AddRequest(messages=[Message("user", "I keep bees")], scope=Scope(user_id="alice"))
        event = memories.submit_add(project, request)
        worker.drain()
        deadline = now().timestamp() + 10
        while (found := store.get_event(project.id, event.id)) is not None and found.status in (
            EventStatus.PENDING,
            EventStatus.RUNNING,
        ):
            assert now().timestamp() < deadline
            time.sleep(0.01)
    finally:
        worker.stop()
    assert found is not None
    return found.status, found.error, engine.calls


@pytest.mark.parametrize(
    ("failures", "status", "calls"),
    [
        ([], EventStatus.SUCCEEDED, 1),
        ([THROTTLED, DOWN], EventStatus.SUCCEEDED, 3),  # passed before the last attempt
        ([THROTTLED, THROTTLED, THROTTLED, THROTTLED], EventStatus.FAILED, 3),  # still failing on the last
        ([ValidationError("messages must not be empty."), THROTTLED], EventStatus.FAILED, 1),  # no point retrying
        ([ProviderError("Provider rejected the request as malformed.", "provider_bad_request")], EventStatus.FAILED, 1),
    ],
)
def test_an_add_is_retried_only_for_errors_that_pass(
    setup: tuple[SqliteTenancyStore, Project], failures: list[Exception], status: EventStatus, calls: int
) -> None:
    ended, error, made = run_one(setup, list(failures))
    assert (ended, made) == (status, calls)
    assert (error is None) == (status is EventStatus.SUCCEEDED)


def test_an_add_that_cannot_be_queued_is_a_503_and_its_event_failed(setup: tuple[SqliteTenancyStore, Project]) -> None:
    store, project = setup

    def broken_queue(_project: str, _event: str, _owner: str) -> None:
        raise ConnectionError("SQS is unreachable")

    enqueue: Enqueue = broken_queue
    memories = ProjectMemories(cast(MemoryNamespaces, OneEngine(ScriptedEngine([]))), store, enqueue=enqueue)
    request = AddRequest(messages=[Message("user", "I keep bees")], scope=Scope(user_id="alice"))
    with pytest.raises(UnavailableError, match="Retry shortly"):
        memories.submit_add(project, request)
    [event] = store.events_of_project(project.id, 10, 0)
    assert event.status is EventStatus.FAILED and "could not be queued" in (event.error or "")
    assert store.unfinished_events() == []


class DeletedMeanwhile:
    """A project's memory service whose add outlasts its project: the owner deletes it while the add runs (and
    the add then succeeds, or fails for a reason that passes)."""

    def __init__(self, store: SqliteTenancyStore, project: Project, error: Exception | None) -> None:
        self.store = store
        self.project = project
        self.error = error

    def add(self, command: AddCommand) -> list[AddResult]:
        self.store.delete_project(self.project.id)
        if self.error is not None:
            raise self.error
        return []


@pytest.mark.parametrize("error", [None, THROTTLED])
def test_an_add_whose_project_is_deleted_while_it_runs_writes_nothing_back(
    setup: tuple[SqliteTenancyStore, Project], error: Exception | None
) -> None:
    store, project = setup
    namespaces = OneEngine(DeletedMeanwhile(store, project, error))
    memories = ProjectMemories(cast(MemoryNamespaces, namespaces), store)
    request = AddRequest(messages=[Message("user", "I keep bees")], scope=Scope(user_id="alice"))
    event = memories.submit_add(project, request)

    memories.process(project.id, event.id, max_attempts=3)  # no retry either: there is nothing to try again

    assert store.get_event(project.id, event.id) is None and store.events_of_project(project.id, 10, 0) == []
    assert store.unfinished_events() == [] and store.counters(project.id) == {}
    assert namespaces.dropped == [project.id]  # what the add stored after the project's drop goes too
