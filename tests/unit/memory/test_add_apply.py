"""The LLM's UPDATE and DELETE decisions applied (services/memory/add/apply.py): on the memories as they are now,
every embedding computed first."""

from __future__ import annotations

from mnemo.domain.memory import Event, LifecycleState, MemoryRecord, SourceMessage
from mnemo.language.en import english
from mnemo.services.commands import AddResult
from mnemo.services.memory.add.apply import Applying, related
from mnemo.services.memory.add.decide import Decision
from mnemo.services.memory.erase import Erasing
from tests.unit.memory.fakes import ALICE, Namespace

CITED = (SourceMessage("user", "I drink green tea now.", 0),)


def applying(ns: Namespace) -> Applying:
    return Applying(ns.parts, Erasing(ns.parts))


def added(ns: Namespace, text: str) -> AddResult:
    return AddResult(ns.put(text), Event.ADD)


def test_the_embeddings_needed_are_those_of_updates_and_of_retired_memories_with_the_new_ones(ns: Namespace) -> None:
    refs = {"0": MemoryRecord.create("Lives in Paris", ALICE), "1": MemoryRecord.create("Likes tea", ALICE)}
    updates = [Decision(Event.UPDATE, "Likes green tea", "1"), Decision(Event.ADD, "Lives in Porto", None)]
    assert list(applying(ns).embedded_for(updates, refs)) == ["Likes green tea"]  # no retirement: no new texts

    deletes = [*updates, Decision(Event.DELETE, "", "0"), Decision(Event.UPDATE, "Made up", "9")]
    assert list(applying(ns).embedded_for(deletes, refs)) == ["Likes green tea", "Lives in Paris", "Lives in Porto"]
    assert applying(ns).embedded_for([Decision(Event.NONE, "Likes tea", "1")], refs) == {}


def test_an_update_rewrites_the_memory_citing_its_sources_and_the_new_ones(ns: Namespace) -> None:
    tea = ns.put("Likes tea", sources=(SourceMessage("user", "I like tea.", 0),))
    decisions = [Decision(Event.UPDATE, "Likes green tea", "0")]
    embedded = applying(ns).embedded_for(decisions, {"0": tea})

    (result,) = applying(ns).apply(decisions, {"0": tea}, [], embedded, {"Likes green tea": CITED}, ["x"])

    assert (result.event, result.previous_memory, result.record.text) == (Event.UPDATE, "Likes tea", "Likes green tea")
    assert [s.content for s in ns.memories()["Likes green tea"].sources] == ["I like tea.", "I drink green tea now."]
    assert [(e.event, e.old_memory) for e in ns.store.history(tea.id)][-1] == (Event.UPDATE, "Likes tea")


def test_a_delete_is_superseded_by_the_new_memory_of_the_fact_the_llm_named(ns: Namespace) -> None:
    paris = ns.put("Lives in Paris")
    fresh = [added(ns, "Likes tea"), added(ns, "Lives in Porto")]
    decisions = [Decision(Event.DELETE, "", "0", replaced_by=1)]
    embedded = applying(ns).embedded_for(decisions, {"0": paris})

    (result,) = applying(ns).apply(decisions, {"0": paris}, fresh, embedded, {}, ["Likes tea", "Lives in Porto"])

    assert (result.event, result.record.state) == (Event.DELETE, LifecycleState.SUPERSEDED)
    assert ns.memories()["Lives in Paris"].replaced_by == fresh[1].record.id


def test_a_delete_without_a_named_fact_is_superseded_by_the_one_whose_claim_conflicts(ns: Namespace) -> None:
    paris = ns.put("I live in Paris.")
    fresh = [added(ns, "I like Paris in spring."), added(ns, "I live in Porto.")]
    decisions = [Decision(Event.DELETE, "", "0")]
    embedded = applying(ns).embedded_for(decisions, {"0": paris})

    applying(ns).apply(decisions, {"0": paris}, fresh, embedded, {}, [])

    assert ns.memories()["I live in Paris."].replaced_by == fresh[1].record.id


def test_a_delete_without_a_new_memory_erases_the_memory(ns: Namespace) -> None:
    paris = ns.put("Lives in Paris")
    (result,) = applying(ns).apply([Decision(Event.DELETE, "", "0")], {"0": paris}, [], {}, {}, [])
    assert (result.event, result.record.id) == (Event.DELETE, paris.id)
    assert ns.memories() == {}


def test_a_decision_on_a_memory_no_longer_active_is_left_alone(ns: Namespace) -> None:
    tea = ns.put("Likes tea", state=LifecycleState.MERGED)
    decisions = [Decision(Event.UPDATE, "Likes green tea", "0"), Decision(Event.DELETE, "", "0")]
    assert applying(ns).apply(decisions, {"0": tea}, [], {}, {}, []) == []
    assert ns.memories()["Likes tea"].state is LifecycleState.MERGED


def test_a_delete_whose_replacement_is_about_something_else_keeps_the_memory(ns: Namespace) -> None:
    # Given a memory about home and a new fact about drinks, which the LLM says replaced it
    paris = ns.put("Lives in Paris")
    fresh = [added(ns, "Drinks green tea")]
    decisions = [Decision(Event.DELETE, "", "0", replaced_by=0)]
    embedded = applying(ns).embedded_for(decisions, {"0": paris})

    results = applying(ns).apply(decisions, {"0": paris}, fresh, embedded, {}, ["Drinks green tea"])

    # Then the true fact is not hidden behind an unrelated one
    assert results == []
    assert ns.memories()["Lives in Paris"].state is LifecycleState.ACTIVE


def test_facts_are_related_by_a_slot_a_word_a_claim_or_their_closeness() -> None:
    assert related(english(), "Lives in Lisbon", "Moved to Porto", 0.0)  # both of home
    assert related(english(), "Drinks black tea", "Drinks green tea now", 0.0)  # a word
    assert related(english(), "Likes jazz", "Prefers opera", 0.5)  # close
    assert not related(english(), "Lives in Lisbon", "Likes jazz", 0.05)
