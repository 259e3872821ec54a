"""An import as a job, over the SQLite stores: a rerun after a crash goes on from the items recorded and adds
nothing twice; a long import runs in parts, each its own message; an error that passes is retried from where it
stopped, and on the last attempt fails its item only; a cancelled job stops (an import before its next item, an add
keeping what it stored); the queue's summary and `mnemo platform resume` know imports."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.domain import filters as f
from mnemo.domain.memory import MemoryRecord, Scope, new_id, now
from mnemo.domain.tenancy import EventStatus, Organization, PlatformEvent, PlatformUser, Project
from mnemo.errors import BackendBusyError, ProviderError
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder, Vectors
from mnemo.services.commands import AddCommand, Message
from mnemo.services.memory import MemoryService
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.jobs.adds import AddJobs
from mnemo.services.platform.jobs.import_request import parse_import
from mnemo.services.platform.jobs.imports import ImportJobs
from mnemo.services.platform.jobs.queue_consumer import JobService
from mnemo.services.platform.jobs.queue_messages import AddJob
from mnemo.services.platform.jobs.queueing import RetryLaterError
from mnemo.services.platform.jobs.requeue import requeue_unfinished
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.platform.tenancy.events import ADD, IMPORT, EventService
from mnemo.services.providers import ActiveProviders, ProviderSet

THROTTLED = ProviderError("Provider rate limit hit. Retry shortly.", "provider_rate_limited")


class Crash(BaseException):
    """The worker process dying mid-import (no `except Exception` catches it)."""


class ScriptedEmbedder:
    """The real embedder; `before` runs on each call (it may raise, or cancel the job)."""

    def __init__(self, real: Embedder) -> None:
        self.real = real
        self.before: Callable[[int], None] | None = None
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
            self.before(self.calls)
        return self.real.embed(texts)


@dataclass
class Setup:
    store: SqliteTenancyStore
    project: Project
    embedder: ScriptedEmbedder
    namespaces: NamespaceMemoryServices
    adds: AddJobs
    imports: ImportJobs
    router: JobRouter
    queued: list[tuple[str, str, str]] = field(default_factory=list)

    def service(self) -> MemoryService:
        return self.namespaces.memory_service(self.project.id)

    def memories(self) -> list[str]:
        return sorted(r.text for r in self.service().get_all(f.And(()), top_k=None))

    def event(self, event_id: str) -> PlatformEvent:
        found = self.store.get_event(self.project.id, event_id)
        assert found is not None
        return found


@pytest.fixture
def setup(tmp_path: Path, embedder: Embedder) -> Iterator[Setup]:
    database = Database(tmp_path / "tenancy.sqlite3")
    store = SqliteTenancyStore(database)
    owner = store.add_user(PlatformUser(new_id(), "owner@example.com", now()))
    org = Organization(f"org_{new_id()[:8]}", "acme", now(), now())
    store.add_org(org, owner)
    project = Project(id=f"proj_{new_id()[:8]}", org_id=org.id, name="p", created_at=now(), updated_at=now())
    store.add_project(project, owner)
    scripted = ScriptedEmbedder(embedder)
    providers = ActiveProviders(ProviderSet(embedder=scripted))
    namespaces = NamespaceMemoryServices(
        SqliteMemoryNamespaces(tmp_path / "namespaces", facets=english()), providers, language=english()
    )
    queued: list[tuple[str, str, str]] = []
    adds = AddJobs(namespaces, store, store, store, lambda p, e, o: queued.append((p, e, o)))
    imports = ImportJobs(namespaces, store, store, store, lambda p, e, o: queued.append((p, e, o)))
    router = JobRouter(store, store, {ADD: adds, IMPORT: imports})
    yield Setup(store, project, scripted, namespaces, adds, imports, router, queued)
    namespaces.close()
    database.close()


def facts(count: int, user: str = "alice") -> list[dict[str, Any]]:
    return [{"memory": f"Fact number {i} about the {user} orchard", "user_id": user} for i in range(count)]


def submit(setup: Setup, items: Any, **ids: str) -> PlatformEvent:
    event = setup.imports.submit(setup.project, parse_import(items, "auto", ids))
    assert setup.queued[-1] == (setup.project.id, event.id, f"import:{event.id}")
    return event


def test_an_import_interrupted_and_run_again_adds_nothing_twice(setup: Setup) -> None:
    event = submit(setup, facts(50))

    def crash_at_the_31st_item(call: int) -> None:
        if call == 31:
            raise Crash

    setup.embedder.before = crash_at_the_31st_item
    with pytest.raises(Crash):
        setup.router.process(setup.project.id, event.id)
    interrupted = setup.event(event.id)
    assert interrupted.status is EventStatus.RUNNING and interrupted.attempts == 1
    recorded = len(interrupted.results)
    assert 0 < recorded < 30  # stored as it went, every few items; the last items added are not recorded yet
    assert len(setup.memories()) == 30

    setup.embedder.before = None
    ended = setup.router.process(setup.project.id, event.id)  # the rerun: a restart, a redelivered message

    assert ended is not None and ended.status is EventStatus.SUCCEEDED and ended.attempts == 1
    assert [r["index"] for r in ended.results] == list(range(50))
    assert interrupted.results == ended.results[:recorded]  # the recorded items were not run again
    assert setup.memories() == sorted(item["memory"] for item in facts(50))  # each once
    ids = [r["memory_ids"][0] for r in ended.results]
    assert len(set(ids)) == 50
    stored = {r.text: r.id for r in setup.service().get_all(f.And(()), top_k=None)}
    assert ids == [stored[item["memory"]] for item in facts(50)]  # the unrecorded ones found as they were stored
    assert setup.store.counters(setup.project.id) == {"add_events": 1}


def test_a_long_import_runs_in_parts_each_a_message_of_its_own(setup: Setup) -> None:
    event = submit(setup, facts(4))
    setup.imports.part_seconds = 0.0  # one item per part

    while setup.queued:
        project_id, ref, owner = setup.queued.pop(0)
        assert owner == f"import:{event.id}"
        part = setup.router.process(project_id, ref)
        assert part is not None

    assert [r["index"] for r in setup.event(event.id).results] == [0, 1, 2, 3]
    ended = setup.event(event.id)
    assert ended.status is EventStatus.SUCCEEDED and ended.attempts == 1
    assert len(setup.memories()) == 4


def test_the_queue_messages_of_the_parts_are_jobs_of_their_own(setup: Setup) -> None:
    event = submit(setup, facts(3))
    setup.imports.part_seconds = 0.0
    jobs = JobService(setup.router)
    setup.queued.clear()

    first = jobs.run(AddJob(setup.project.id, event.id).to_json())
    (_, ref, _) = setup.queued.pop()
    second = jobs.run(AddJob(setup.project.id, ref).to_json())

    assert first == {
        "job_id": event.id,
        "event_id": event.id,
        "status": "RUNNING",
        "results": [{"index": 0, "status": "ADDED"}],
    }
    assert ref == f"{event.id}~1" and second["job_id"] == ref and second["event_id"] == event.id
    assert second["results"] == [{"index": 0, "status": "ADDED"}, {"index": 1, "status": "ADDED"}]


def test_an_error_that_passes_is_retried_from_where_it_stopped(setup: Setup) -> None:
    event = submit(setup, facts(6))

    def throttled_at_the_4th(call: int) -> None:
        if call == 4:
            raise THROTTLED

    setup.embedder.before = throttled_at_the_4th
    with pytest.raises(RetryLaterError):
        setup.router.process(setup.project.id, event.id, max_attempts=2)
    waiting = setup.event(event.id)
    assert waiting.status is EventStatus.PENDING and [r["index"] for r in waiting.results] == [0, 1, 2]

    ended = setup.router.process(setup.project.id, event.id, max_attempts=2)

    assert ended is not None and ended.status is EventStatus.SUCCEEDED and ended.attempts == 2
    assert setup.embedder.calls == 4 + 3  # the three items done were not run again
    assert len(setup.memories()) == 6


def test_an_item_whose_index_write_failed_is_indexed_by_the_rerun(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The third item is stored, then its index write meets a busy index: the import is retried, its rerun finds
    the item stored already (NONE), and writes its index document again."""
    event = submit(setup, facts(4))
    index = setup.service().index
    healthy = index.upsert
    writes: list[list[str]] = []

    def busy_on_the_third(records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        writes.append([r.text for r in records])
        if len(writes) == 3:
            raise BackendBusyError("The search index is busy; retry in a moment.")
        healthy(records, vectors)

    monkeypatch.setattr(index, "upsert", busy_on_the_third)
    with pytest.raises(RetryLaterError):
        setup.router.process(setup.project.id, event.id, max_attempts=2)
    assert len(setup.memories()) == 3 and index.count() == 2  # the third is stored, not indexed

    ended = setup.router.process(setup.project.id, event.id, max_attempts=2)

    assert ended is not None and ended.status is EventStatus.SUCCEEDED and ended.attempts == 2
    assert setup.memories() == sorted(item["memory"] for item in facts(4))
    assert index.count() == 4
    third = facts(4)[2]["memory"]
    hits = index.search(setup.embedder.real.embed([third])[0], third, f.And(()), 1)
    assert [h.memory_id for h in hits] == ended.results[2]["memory_ids"]


def test_on_the_last_attempt_an_error_that_passes_fails_its_item_only(setup: Setup) -> None:
    event = submit(setup, facts(3))

    def throttled_at_the_2nd(call: int) -> None:
        if call == 2:
            raise THROTTLED

    setup.embedder.before = throttled_at_the_2nd
    ended = setup.router.process(setup.project.id, event.id, max_attempts=1)

    assert ended is not None and ended.status is EventStatus.PARTIALLY_COMPLETED
    assert [(r["index"], r["status"]) for r in ended.results] == [(0, "ADDED"), (1, "FAILED"), (2, "ADDED")]
    assert ended.results[1]["reason"] == THROTTLED.message
    assert ended.error == "1 of 3 items were not imported (0 refused, 1 failed; the results say why)."


def test_an_import_cancelled_while_it_runs_stops_before_its_next_item(setup: Setup) -> None:
    event = submit(setup, facts(10))
    events = EventService(setup.store)

    def cancel_during_the_3rd(call: int) -> None:
        if call == 3:
            assert events.cancel(setup.project.id, event.id).status is EventStatus.CANCELLED

    setup.embedder.before = cancel_during_the_3rd
    ended = setup.router.process(setup.project.id, event.id)

    assert ended is not None and ended.status is EventStatus.CANCELLED
    assert [(r["index"], r["status"]) for r in ended.results] == [(0, "ADDED"), (1, "ADDED"), (2, "ADDED")]
    assert ended.error == (
        "Cancelled while running: 3 of 10 items had been imported, and are kept; the results say which."
    )
    assert setup.event(event.id) == ended and len(setup.memories()) == 3
    assert setup.router.process(setup.project.id, event.id) == ended  # a redelivered message runs nothing


def test_a_job_cancelled_before_it_runs_never_runs(setup: Setup) -> None:
    events = EventService(setup.store)
    imported = submit(setup, facts(2))
    added = setup.adds.submit(setup.project, AddCommand([Message("user", "I keep bees")], Scope(user_id="bob")))
    for event in (imported, added):
        cancelled = events.cancel(setup.project.id, event.id)
        assert (cancelled.status, cancelled.error) == (
            EventStatus.CANCELLED,
            "Cancelled before it ran: nothing was added.",
        )
        assert setup.router.process(setup.project.id, event.id) == cancelled
    assert setup.memories() == [] and setup.embedder.calls == 0
    assert setup.store.unfinished_events() == []


@pytest.mark.parametrize("transient", [False, True])
def test_an_add_cancelled_while_it_runs_stays_cancelled_with_what_it_stored(setup: Setup, transient: bool) -> None:
    events = EventService(setup.store)
    added = setup.adds.submit(
        setup.project, AddCommand([Message("user", "I keep bees")], Scope(user_id="bob"), infer=False)
    )

    def cancel_meanwhile(call: int) -> None:
        if call > 1:  # the add embeds its memory, then (once) the categories it files memories under
            return
        events.cancel(setup.project.id, added.id)
        if transient:
            raise THROTTLED

    setup.embedder.before = cancel_meanwhile
    ended = setup.router.process(setup.project.id, added.id, max_attempts=3)  # no RetryLaterError: it was cancelled

    assert ended is not None and ended.status is EventStatus.CANCELLED and setup.event(added.id) == ended
    if transient:
        assert ended.results == [] and setup.memories() == []
    else:
        assert [r["data"]["memory"] for r in ended.results] == ["I keep bees"] == setup.memories()
    assert ended.started_at is not None and setup.store.counters(setup.project.id) == {}


def test_resume_queues_unfinished_imports_as_their_own_owner(setup: Setup) -> None:
    imported = submit(setup, facts(2))
    added = setup.adds.submit(setup.project, AddCommand([Message("user", "I keep bees")], Scope(user_id="bob")))
    again: list[tuple[str, str, str]] = []

    stale = requeue_unfinished(setup.store, lambda p, e, o: again.append((p, e, o)), timedelta(0), now)

    assert {e.id for e in stale} == {imported.id, added.id}
    assert sorted(again) == sorted(
        [(setup.project.id, imported.id, f"import:{imported.id}"), (setup.project.id, added.id, "user:bob")]
    )


def test_an_import_whose_project_is_deleted_while_it_runs_writes_nothing_back(setup: Setup) -> None:
    event = submit(setup, facts(5))

    def delete_the_project(call: int) -> None:
        if call == 2:
            setup.store.delete_project(setup.project.id)

    setup.embedder.before = delete_the_project
    assert setup.router.process(setup.project.id, event.id) is None
    assert setup.store.get_event(setup.project.id, event.id) is None
    assert setup.namespaces.stored_namespaces() == []  # what it added went with the project
