"""The current fact wins, without an LLM (issue 16), over SQLite and the real embedder: a newer statement of the
same subject and attribute, or one that says the older changed, keeps the older as OUTDATED (linked, listed with
its state, ranked right below the newer); questions asked by the user's name or about an attribute find the
current fact whatever the threshold; a backdated add is outdated by the newer one it predates."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain import filters as f
from mnemo.domain.memory import CURRENT_AND_OUTDATED, Event, LifecycleState, MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder
from mnemo.services.commands import AddCommand, Message, SearchCommand
from mnemo.services.memory import MemoryService
from mnemo.services.providers import ActiveProviders, ProviderSet

T0 = datetime(2025, 3, 1, 10, 0, tzinfo=UTC)
ALICE = f.parse({"user_id": "alice"})


@pytest.fixture
def service(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryService]:
    database = Database(tmp_path / "m.sqlite3")
    yield MemoryService(
        SqliteMemoryStore(database),
        LocalMemoryIndex(database, embedder.dimension, facets=english()),
        ActiveProviders(ProviderSet(embedder=embedder)),
        language=english(),
    )
    database.close()


def say(service: MemoryService, text: str, days: float = 0, user: str = "alice") -> list[MemoryRecord]:
    command = AddCommand([Message("user", text)], Scope(user_id=user), timestamp=T0 + timedelta(days=days))
    return [r.record for r in service.add(command) if r.event is Event.ADD]


def memories(service: MemoryService) -> dict[str, MemoryRecord]:
    return {r.text: r for r in service.get_all(ALICE, top_k=None, states=CURRENT_AND_OUTDATED)}


def first(service: MemoryService, question: str, threshold: float = 0.1) -> str:
    found = service.search(SearchCommand(question, ALICE, top_k=3, threshold=threshold, states=CURRENT_AND_OUTDATED))
    return found[0].record.text


def test_a_newer_claim_outdates_the_older_one_which_stays_listed_below_it(service: MemoryService) -> None:
    (paris,) = say(service, "I live in Paris.")
    (lisbon,) = say(service, "I moved from Paris to Lisbon.", days=30)

    stored = memories(service)
    assert stored["I live in Paris."].state is LifecycleState.OUTDATED
    assert stored["I live in Paris."].replaced_by == lisbon.id
    assert stored["I moved from Paris to Lisbon."].state is LifecycleState.ACTIVE
    assert [h.event for h in service.history(paris.id)] == [Event.ADD, Event.UPDATE]
    assert [h.new_memory for h in service.history(paris.id)] == ["I live in Paris.", "I live in Paris."]
    for question in ("Where do I live?", "Where does Alice live?"):
        found = service.search(SearchCommand(question, ALICE, top_k=3, states=CURRENT_AND_OUTDATED))
        texts = [r.record.text for r in found]
        assert texts[:2] == ["I moved from Paris to Lisbon.", "I live in Paris."]
    latest = service.search(SearchCommand("Where do I live?", ALICE, top_k=3))
    assert [r.record.text for r in latest] == ["I moved from Paris to Lisbon."]  # active only: no outdated


def test_a_question_about_an_attribute_finds_its_answer_under_the_threshold(service: MemoryService) -> None:
    say(service, "Hi! I'm Dan.")
    say(service, "I'm a backend engineer at Google.", days=1)
    say(service, "I quit Google and joined Stripe.", days=60)

    assert first(service, "Where does Dan work?") == "I quit Google and joined Stripe."
    assert first(service, "Where do I work?", threshold=0.3) == "I quit Google and joined Stripe."
    assert memories(service)["I'm a backend engineer at Google."].state is LifecycleState.OUTDATED
    assert first(service, "What is my name?") == "Name is Dan"


def test_a_statement_saying_a_change_outdates_the_close_older_one(service: MemoryService) -> None:
    say(service, "I take the bus to work every day.")
    say(service, "I walk my dog every morning.", days=1)
    say(service, "I cycle to work now instead of taking the bus.", days=40)
    say(service, "I bought a new lead for my dog.", days=41)  # says nothing changed about walking the dog

    stored = memories(service)
    assert stored["I take the bus to work every day."].state is LifecycleState.OUTDATED
    assert stored["I walk my dog every morning."].state is LifecycleState.ACTIVE


def test_a_backdated_statement_is_the_outdated_one(service: MemoryService) -> None:
    say(service, "I live in Lisbon.", days=100)
    say(service, "I live in Paris.", days=0)  # told later, but about an earlier time

    stored = memories(service)
    assert stored["I live in Paris."].state is LifecycleState.OUTDATED
    assert stored["I live in Lisbon."].state is LifecycleState.ACTIVE


def test_another_persons_fact_does_not_outdate_the_users(service: MemoryService) -> None:
    say(service, "I live in Paris.")
    say(service, "My sister Emma lives in Berlin.", days=10)
    say(service, "I live in Oslo.", user="bob", days=20)

    assert all(r.state is LifecycleState.ACTIVE for r in memories(service).values())
