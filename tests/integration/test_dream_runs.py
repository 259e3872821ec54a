"""Dream runs as jobs, over the SQLite stores and the real embedder, with a scripted LLM: an error that passes puts
the run back to PENDING, keeps the users done and lets their claims go, and the rerun goes on from there (on the
last attempt the user fails, the run goes on); a long run goes on in parts, each its own message; the schedule
picks a user once per interval (by the clock), never while a run holds them, and leaves manual projects alone; a
change naming a memory deleted since the LLM read it is left out; the queue's summary and `mnemo platform resume`
know Dream runs."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.namespaces import SqliteMemoryNamespaces
from mnemo.adapters.sqlite.reflection_store import SqliteReflectionStore
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.domain import filters as f
from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.memory import LifecycleState, Scope, new_id
from mnemo.domain.tenancy import EventStatus, Organization, PlatformEvent, PlatformUser, Project
from mnemo.domain.timefmt import iso
from mnemo.errors import ProviderError
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema
from mnemo.services.commands import AddCommand, ConsolidateCommand, Merge, Message, Supersede, Synthesis
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.dream.runs import DREAM_OWNER, SCHEDULE, DreamJobs, DreamPolicy
from mnemo.services.platform.dream.schedule import DreamScheduler
from mnemo.services.platform.jobs.adds import AddJobs
from mnemo.services.platform.jobs.queue_consumer import JobService
from mnemo.services.platform.jobs.queue_messages import AddJob
from mnemo.services.platform.jobs.queueing import RetryLaterError
from mnemo.services.platform.jobs.requeue import requeue_unfinished
from mnemo.services.platform.jobs.router import JobRouter
from mnemo.services.platform.tenancy.events import ADD, DREAM
from mnemo.services.providers import ActiveProviders, ProviderSet

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
THROTTLED = ProviderError("Provider rate limit hit. Retry shortly.", "provider_rate_limited")
NOTHING = json.dumps({"synthesized": [], "merge": [], "supersede": []})


class ScriptedLLM:
    """Replies in order: a string, or an exception to raise."""

    name = "scripted"

    def __init__(self) -> None:
        self.replies: list[str | Exception] = []
        self.prompts: list[str] = []

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        self.prompts.append(messages[0]["content"])
        reply = self.replies.pop(0) if self.replies else NOTHING
        if isinstance(reply, Exception):
            raise reply
        return Completion(reply, LLMUsage.of_call(10, 2))


@dataclass
class Clock:
    at: datetime = T0

    def __call__(self) -> datetime:
        return self.at


@dataclass
class Setup:
    store: SqliteTenancyStore
    reflections: SqliteReflectionStore
    project: Project
    namespaces: NamespaceMemoryServices
    router: JobRouter
    dreams: DreamJobs
    llm: ScriptedLLM
    clock: Clock
    queued: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, user: str, count: int, *, words: str = "orchard") -> list[str]:
        texts = [f"Fact {i} about the {user} {words}" for i in range(count)]
        command = AddCommand([Message("user", t) for t in texts], Scope(user_id=user), infer=False)
        return [r.record.id for r in self.namespaces.memory_service(self.project.id).add(command)]

    def event(self, event_id: str) -> PlatformEvent:
        found = self.store.get_event(self.project.id, event_id)
        assert found is not None
        return found

    def run(self, event: PlatformEvent, max_attempts: int = 1) -> PlatformEvent:
        self.router.process(self.project.id, event.id, max_attempts=max_attempts)
        return self.event(event.id)


@pytest.fixture
def setup(tmp_path: Path, embedder: Embedder) -> Iterator[Setup]:
    database = Database(tmp_path / "tenancy.sqlite3")
    store = SqliteTenancyStore(database)
    reflections = SqliteReflectionStore(database)
    owner = store.add_user(PlatformUser(new_id(), "owner@example.com", T0))
    org = Organization(f"org_{new_id()[:8]}", "acme", T0, T0)
    store.add_org(org, owner)
    project = Project(
        id=f"proj_{new_id()[:8]}", org_id=org.id, name="p", created_at=T0, updated_at=T0, reflection_enabled=True
    )
    store.add_project(project, owner)
    reflections.set_enabled(project.id, True)
    namespaces = NamespaceMemoryServices(
        SqliteMemoryNamespaces(tmp_path / "namespaces", facets=english()),
        ActiveProviders(ProviderSet(embedder=embedder)),
        language=english(),
    )
    queued: list[tuple[str, str, str]] = []
    enqueue = lambda p, e, o: queued.append((p, e, o))  # noqa: E731
    llm = ScriptedLLM()
    clock = Clock()
    dreams = DreamJobs(
        namespaces, store, reflections, lambda: llm, enqueue, policy=DreamPolicy(min_memories=3), clock=clock
    )
    router = JobRouter(store, store, {ADD: AddJobs(namespaces, store, store, store, enqueue), DREAM: dreams})
    yield Setup(store, reflections, project, namespaces, router, dreams, llm, clock, queued)
    namespaces.close()
    database.close()


def test_an_error_that_passes_keeps_the_users_done_and_the_rerun_goes_on(setup: Setup) -> None:
    for user in ("ann", "bea", "cid"):
        setup.add(user, 3)
    event = setup.dreams.submit(setup.project, "request")
    assert setup.queued == [(setup.project.id, event.id, DREAM_OWNER)]
    setup.llm.replies = [NOTHING, THROTTLED]

    with pytest.raises(RetryLaterError):
        setup.run(event, max_attempts=3)
    pending = setup.event(event.id)
    assert pending.status is EventStatus.PENDING and pending.attempts == 1
    assert [(r["user_id"], r["status"]) for r in pending.results] == [("ann", "DONE")]
    assert not setup.reflections.states(setup.project.id)["bea"].held(T0)  # its claim was let go

    setup.llm.replies = [NOTHING, THROTTLED]  # bea done; cid throttled again, on the last attempt: it fails
    ended = setup.run(event, max_attempts=2)
    assert ended.status is EventStatus.PARTIALLY_COMPLETED and ended.attempts == 2
    assert [(r["user_id"], r["status"]) for r in ended.results] == [("ann", "DONE"), ("bea", "DONE"), ("cid", "FAILED")]
    assert "rate limit" in ended.results[2]["reason"]
    assert len(setup.llm.prompts) == 4  # ann once, bea twice, cid once: no user reflected on twice
    states = setup.reflections.states(setup.project.id)
    assert states["ann"].last_run_at == T0 and states["cid"].last_run_at is None  # a failed user may run again


def test_a_long_run_goes_on_in_parts(setup: Setup) -> None:
    for user in ("ann", "bea", "cid"):
        setup.add(user, 3)
    ticks = iter([0.0, 10_000.0])  # the part's start; the check before the second user: its time is up
    setup.dreams._timer = lambda: next(ticks)
    event = setup.dreams.submit(setup.project, "request")

    first = setup.run(event)
    assert first.status is EventStatus.RUNNING and [r["user_id"] for r in first.results] == ["ann"]
    assert setup.queued[-1] == (setup.project.id, f"{event.id}~1", DREAM_OWNER)

    setup.dreams._timer = lambda: 0.0
    setup.router.process(setup.project.id, f"{event.id}~1")
    ended = setup.event(event.id)
    assert ended.status is EventStatus.SUCCEEDED and [r["user_id"] for r in ended.results] == ["ann", "bea", "cid"]


def test_the_schedule_picks_a_user_once_per_interval_by_the_clock(setup: Setup) -> None:
    setup.add("ann", 3)
    setup.add("bea", 2)  # too few
    submitted: list[PlatformEvent] = []

    def submit(project: Project, trigger: str, users: Sequence[str], claimed_at: datetime) -> PlatformEvent:
        event = setup.dreams.submit(project, trigger, users, claimed_at)
        submitted.append(event)
        return event

    scheduler = DreamScheduler(
        setup.store,
        setup.reflections,
        lambda p: setup.namespaces.memory_service(p).entity_counts(),
        submit,
        policy=setup.dreams.policy,
        clock=setup.clock,
    )
    (first,) = scheduler.tick()
    assert first.payload == {"trigger": SCHEDULE, "user_ids": ["ann"], "claimed_at": iso(T0)}
    assert scheduler.tick() == []  # a second tick before the run: ann is held for the run queued
    setup.clock.at = T0 + timedelta(minutes=5)
    assert setup.run(first).results[0]["status"] == "DONE"
    assert setup.reflections.states(setup.project.id)["ann"].last_run_at == setup.clock.at  # when the run began

    for days, due in ((1, []), (6, []), (7, []), (7.01, ["ann"])):
        setup.clock.at = T0 + timedelta(days=days)
        assert scheduler.due_users(setup.project.id, setup.clock.at) == due
    setup.clock.at = T0 + timedelta(days=8)
    assert setup.reflections.claim(setup.project.id, "ann", setup.clock.at, lease=timedelta(minutes=15))
    assert scheduler.tick() == []  # an on-demand run holds her: not due
    assert len(submitted) == 1 and len(setup.llm.prompts) == 1

    setup.store.save_project(setup.project.changed(reflection_mode="manual"))
    setup.clock.at = T0 + timedelta(days=30)
    assert scheduler.due_users(setup.project.id, setup.clock.at) == ["ann"]
    assert scheduler.tick() == []  # on demand only
    setup.store.save_project(setup.project.changed(reflection_enabled=False))
    assert scheduler.tick() == []
    assert setup.reflections.enabled_projects() == []  # a project turned off is taken off the list


def test_without_an_llm_or_with_synthesis_off_a_run_fails_and_says_why(setup: Setup) -> None:
    setup.add("ann", 3)
    event = setup.dreams.submit(setup.project, "request")
    setup.store.save_project(setup.project.changed(reflection_enabled=False))
    off = setup.run(event)
    assert off.status is EventStatus.FAILED and off.error is not None and "Synthesis is off" in off.error

    setup.store.save_project(setup.project)
    setup.dreams._llm = lambda: None
    no_llm = setup.run(setup.dreams.submit(setup.project, "request"))
    assert no_llm.status is EventStatus.FAILED and no_llm.error is not None and "needs an LLM" in no_llm.error


def test_a_change_naming_a_memory_gone_since_the_run_read_it_is_left_out(setup: Setup) -> None:
    ids = setup.add("ann", 4)
    service = setup.namespaces.memory_service(setup.project.id)
    service.delete(ids[0])
    command = ConsolidateCommand(
        Scope(user_id="ann"),
        syntheses=(Synthesis("Tends an orchard", (ids[0], ids[1])),),  # one source gone: too few left
        merges=(Merge(ids[1], (ids[0],)),),  # the duplicate gone
        supersedes=(Supersede(ids[2], ids[3]), Supersede(ids[3], ids[2])),  # the second names a retired memory
    )

    changes = service.consolidate(command)

    assert [(c.record.id, c.action.value) for c in changes] == [(ids[2], "SUPERSEDE")]
    assert service.get(ids[3]).state is LifecycleState.ACTIVE
    assert service.get(ids[2]).state is LifecycleState.SUPERSEDED
    assert [r.text for r in service.get_all(f.Condition("user_id", "eq", "ann"))] == [
        "Fact 3 about the ann orchard",
        "Fact 1 about the ann orchard",
    ]


def test_a_run_never_merges_supersedes_or_rewords_an_immutable_memory(setup: Setup) -> None:
    service = setup.namespaces.memory_service(setup.project.id)
    texts = ["Lives in Paris", "Is based in Paris", "Works at Acme", "Drinks tea"]
    command = AddCommand([Message("user", t) for t in texts], Scope(user_id="ann"), infer=False, immutable=True)
    paris, based, acme, tea = [r.record.id for r in service.add(command)]
    mutable = setup.add("ann", 1)[0]

    changes = service.consolidate(
        ConsolidateCommand(
            Scope(user_id="ann"),
            merges=(Merge(paris, (based,), "Lives in Paris, France"), Merge(paris, (mutable,))),
            supersedes=(Supersede(acme, tea),),
        )
    )

    # the mutable duplicate is merged into the immutable memory, which keeps its words; nothing else changes
    assert [(c.record.id, c.action.value) for c in changes] == [(mutable, "MERGE")]
    assert service.get(paris).text == "Lives in Paris"
    assert all(service.get(i).state is LifecycleState.ACTIVE for i in (paris, based, acme, tea))


def test_the_queue_summary_and_resume_know_dream_runs(setup: Setup) -> None:
    setup.add("ann", 3)
    event = setup.dreams.submit(setup.project, "request")
    summary = JobService(setup.router).run(AddJob(setup.project.id, event.id).to_json())
    assert summary["status"] == "SUCCEEDED" and summary["results"] == [{"user_id": "ann", "status": "DONE"}]

    stale = setup.dreams.submit(setup.project, "request")
    requeued: list[tuple[str, str, str]] = []
    later: Callable[[], datetime] = lambda: stale.updated_at + timedelta(hours=1)  # noqa: E731
    found = requeue_unfinished(setup.store, lambda p, e, o: requeued.append((p, e, o)), timedelta(minutes=5), later)
    assert [e.id for e in found] == [stale.id] and requeued == [(setup.project.id, stale.id, DREAM_OWNER)]
