"""Without an LLM the current fact wins (services/memory/add/outdating.py): an active memory a newer statement likely
makes out of date is kept OUTDATED, replaced by the newer one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mnemo.domain.memory import Event, LifecycleState, MemoryRecord
from mnemo.language.en import english
from mnemo.services.memory.add.outdating import Outdating, replaces
from tests.unit.memory.fakes import ALICE, Namespace

T0 = datetime(2025, 3, 1, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


def close() -> float:
    return 0.9


def far() -> float:
    return 0.0


def said(text: str, at: datetime) -> MemoryRecord:
    return MemoryRecord.create(text, ALICE, at=at)


def test_conflicting_claims_replace_whatever_their_closeness_or_time() -> None:
    assert replaces(english(), said("I live in Porto.", LATER), said("I live in Paris.", T0), far)
    assert replaces(english(), said("I live in Porto.", T0), said("I live in Paris.", T0), far)


def test_a_later_statement_saying_a_change_replaces_a_close_earlier_one() -> None:
    left, worked = said("I left the agency, I'm freelancing now.", LATER), said("I work at an agency.", T0)
    assert replaces(english(), left, worked, close)
    assert not replaces(english(), left, worked, far)
    assert not replaces(
        english(), said("I left the agency.", T0), said("I work at an agency.", T0), close
    )  # said together


def test_a_newer_statement_outdates_the_older_memory_it_replaces(ns: Namespace) -> None:
    # Given a stored memory and a newer statement that conflicts with it, both stored
    paris = ns.put("I live in Paris.", created_at=T0, updated_at=T0)
    porto = ns.put("I live in Porto.", created_at=LATER, updated_at=LATER)
    tea = ns.put("I like tea.", created_at=T0, updated_at=T0)

    # When the newer one is settled
    Outdating(ns.parts).outdate_replaced([(porto, ns.parts.embed([porto.text])[0])], ALICE)

    # Then the older is outdated, replaced by the newer, its history an UPDATE of the same text
    stored = ns.memories()
    assert (stored[paris.text].state, stored[paris.text].replaced_by) == (LifecycleState.OUTDATED, porto.id)
    assert stored[porto.text].state is LifecycleState.ACTIVE
    assert stored[tea.text].state is LifecycleState.ACTIVE
    last = ns.store.history(paris.id)[-1]
    assert (last.event, last.old_memory, last.new_memory) == (Event.UPDATE, paris.text, paris.text)


def test_a_backdated_statement_is_itself_the_outdated_one(ns: Namespace) -> None:
    porto = ns.put("I live in Porto.", created_at=LATER, updated_at=LATER)
    paris = ns.put("I live in Paris.", created_at=T0, updated_at=T0)
    Outdating(ns.parts).outdate_replaced([(paris, ns.parts.embed([paris.text])[0])], ALICE)
    assert ns.memories()[paris.text].replaced_by == porto.id
    assert ns.memories()[porto.text].state is LifecycleState.ACTIVE


def test_an_immutable_memory_is_never_outdated(ns: Namespace) -> None:
    paris = ns.put("I live in Paris.", created_at=T0, updated_at=T0, immutable=True)
    porto = ns.put("I live in Porto.", created_at=LATER, updated_at=LATER)
    Outdating(ns.parts).outdate_replaced([(porto, ns.parts.embed([porto.text])[0])], ALICE)
    assert ns.memories()[paris.text].state is LifecycleState.ACTIVE


def test_the_statements_of_one_add_are_compared_with_each_other(ns: Namespace) -> None:
    paris = ns.put("I live in Paris.", created_at=T0, updated_at=T0)
    porto = ns.put("I live in Porto.", created_at=LATER, updated_at=LATER)
    vectors = ns.parts.embed([paris.text, porto.text])
    ns.index.remove([paris.id])  # the index does not find it: only the add's own statements do

    Outdating(ns.parts).outdate_replaced([(paris, vectors[0]), (porto, vectors[1])], ALICE)

    assert ns.memories()[paris.text].replaced_by == porto.id
