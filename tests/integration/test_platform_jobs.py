"""How a platform add job ends when its provider fails: an error that passes (throttled, timing out, down) is
tried again, in order, before the project's next add; one that does not pass, or the last attempt, ends the event
FAILED; an add that cannot be queued is a 503 and its event FAILED, never PENDING forever."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mnemo.adapters.inprocess.queue import InProcessQueue
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.domain.memory import Scope, new_id, now
from mnemo.domain.tenancy import EventStatus, Organization, PlatformUser, Project
from mnemo.errors import ProviderError, UnavailableError, ValidationError
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder, Vectors
from mnemo.services.commands import AddCommand, Message
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.jobs.add_worker import AddWorker, local_enqueuer
from mnemo.services.platform.jobs.adds import AddJobs
from mnemo.services.platform.jobs.queueing import Enqueue
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.platform.tenancy.events import ADD, new_event
from mnemo.services.providers import ActiveProviders, ProviderSet
from tests.support.waits import seconds


class ScriptedEmbedder:
    """The real embedder, except that its calls fail as scripted first (a provider throttled, down, ...), and that
    `before` runs on every call (the owner deleting the project while its add runs)."""

    def __init__(self, real: Embedder, failures: list[Exception], before: Callable[[], None] | None = None) -> None:
        self.real = real
        self.failures = failures
        self.before = before
        self.calls = 0

    @property
    def name(self) -> str:
        return "scripted"

    @property
    def dimension(self) -> int:
        return self.real.dimension

    def embed(self, texts: list[str]) -> Vectors:
        self.calls += 1
        if self.before is not None:
            self.before()
        if self.failures:
            raise self.failures.pop(0)
        return self.real.embed(texts)


@dataclass
class Setup:
    store: SqliteTenancyStore
    project: Project
    root: Path

    def adds(
        self, embedder: ScriptedEmbedder, enqueue: Enqueue | None = None
    ) -> tuple[AddJobs, NamespaceMemoryServices]:
        providers = ActiveProviders(ProviderSet(embedder=embedder))
        namespaces = NamespaceMemoryServices(
            SqliteMemoryNamespaces(self.root / "namespaces", facets=english()), providers, language=english()
        )
        return AddJobs(namespaces, self.store, self.store, self.store, enqueue), namespaces


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    database = Database(tmp_path / "tenancy.sqlite3")
    store = SqliteTenancyStore(database)
    owner = store.add_user(PlatformUser(new_id(), "owner@example.com", now()))
    org = Organization(f"org_{new_id()[:8]}", "acme", now(), now())
    store.add_org(org, owner)
    project = Project(id=f"proj_{new_id()[:8]}", org_id=org.id, name="p", created_at=now(), updated_at=now())
    store.add_project(project, owner)
    yield Setup(store, project, tmp_path)
    database.close()


BEES = AddCommand([Message("user", "I keep bees")], Scope(user_id="alice"), infer=False)
THROTTLED = ProviderError("Provider rate limit hit. Retry shortly.", "provider_rate_limited")
DOWN = ProviderError("Provider is unreachable or returned a server error.", "provider_unavailable")


def run_one(setup: Setup, embedder: Embedder, failures: list[Exception]) -> tuple[EventStatus, str | None, int]:
    scripted = ScriptedEmbedder(embedder, failures)
    queue = InProcessQueue()
    adds, namespaces = setup.adds(scripted, local_enqueuer(queue))
    router = JobRouter(setup.store, setup.store, {ADD: adds})
    worker = AddWorker(router, setup.store, queue, retry_delays=(0.0, 0.0))  # three attempts in all
    worker.start()
    try:
        event = adds.submit(setup.project, BEES)
        worker.drain()
        deadline = now().timestamp() + seconds(10)
        while (found := setup.store.get_event(setup.project.id, event.id)) is not None and found.status in (
            EventStatus.PENDING,
            EventStatus.RUNNING,
        ):
            assert now().timestamp() < deadline
            time.sleep(0.01)
    finally:
        worker.stop()
        namespaces.close()
    assert found is not None
    return found.status, found.error, scripted.calls


@pytest.mark.parametrize(
    ("failures", "status", "calls"),
    [
        # a success embeds once more: the categories its memory is filed under (once per project's service)
        ([], EventStatus.SUCCEEDED, 2),
        ([THROTTLED, DOWN], EventStatus.SUCCEEDED, 4),  # passed before the last attempt
        ([THROTTLED, THROTTLED, THROTTLED, THROTTLED], EventStatus.FAILED, 3),  # still failing on the last
        ([ValidationError("messages must not be empty."), THROTTLED], EventStatus.FAILED, 1),  # no point retrying
        ([ProviderError("Provider rejected the request as malformed.", "provider_bad_request")], EventStatus.FAILED, 1),
    ],
)
def test_an_add_is_retried_only_for_errors_that_pass(
    setup: Setup, embedder: Embedder, failures: list[Exception], status: EventStatus, calls: int
) -> None:
    ended, error, made = run_one(setup, embedder, list(failures))
    assert (ended, made) == (status, calls)
    assert (error is None) == (status is EventStatus.SUCCEEDED)


def test_an_add_that_cannot_be_queued_is_a_503_and_its_event_failed(setup: Setup, embedder: Embedder) -> None:
    def broken_queue(_project: str, _event: str, _owner: str) -> None:
        raise ConnectionError("SQS is unreachable")

    adds, namespaces = setup.adds(ScriptedEmbedder(embedder, []), enqueue=broken_queue)
    with pytest.raises(UnavailableError, match="Retry shortly"):
        adds.submit(setup.project, BEES)
    [event] = setup.store.events_of_project(setup.project.id, 10, 0)
    assert event.status is EventStatus.FAILED and "could not be queued" in (event.error or "")
    assert setup.store.unfinished_events() == []
    namespaces.close()


@pytest.mark.parametrize("error", [None, THROTTLED])
def test_an_add_whose_project_is_deleted_while_it_runs_writes_nothing_back(
    setup: Setup, embedder: Embedder, error: Exception | None
) -> None:
    """The owner deletes the project while its add runs (the add then succeeds, or fails for a reason that
    passes): nothing is written back, and what the add stored goes too."""
    project = setup.project
    adds, namespaces = setup.adds(
        ScriptedEmbedder(embedder, [error] if error else [], before=lambda: setup.store.delete_project(project.id)),
        enqueue=lambda _project, _event, _owner: None,
    )
    event = adds.submit(project, BEES)

    JobRouter(setup.store, setup.store, {ADD: adds}).process(
        project.id, event.id, max_attempts=3
    )  # no retry either: there is nothing to try again

    assert (
        setup.store.get_event(project.id, event.id) is None and setup.store.events_of_project(project.id, 10, 0) == []
    )
    assert setup.store.unfinished_events() == [] and setup.store.counters(project.id) == {}
    assert namespaces.stored_namespaces() == []  # the namespace the add wrote to was dropped
    namespaces.close()


def test_an_event_whose_payload_is_not_an_add_ends_failed_saying_why(setup: Setup, embedder: Embedder) -> None:
    """A stored event no version of the add could read (damaged, or written by a future version): the worker
    ends it FAILED with the reason, and runs nothing."""
    adds, namespaces = setup.adds(ScriptedEmbedder(embedder, []), enqueue=lambda _project, _event, _owner: None)
    event = new_event(setup.project.id, ADD, {"messages": "not a list"}, now())
    setup.store.save_event(event)

    ended = JobRouter(setup.store, setup.store, {ADD: adds}).process(setup.project.id, event.id, max_attempts=3)

    assert ended is not None and ended.status is EventStatus.FAILED
    assert (ended.error or "").startswith("Not an add: messages")
    assert namespaces.stored_namespaces() == []  # nothing ran
    namespaces.close()
