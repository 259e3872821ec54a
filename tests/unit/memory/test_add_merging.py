"""Merge on insert (services/memory/add/merging.py): a new memory stating what an active memory of its scope states
is kept MERGED into it; the rule is mnemo.language.en.paraphrase's, over the real SQLite index."""

from __future__ import annotations

from mnemo.domain.memory import LifecycleState, MemoryRecord
from mnemo.services.memory.add.merging import Merging
from tests.unit.memory.fakes import ALICE, BOB, Namespace


def merged(ns: Namespace, *texts: str, immutable: bool = False) -> list[MemoryRecord]:
    new = [MemoryRecord.create(t, ALICE, immutable=immutable) for t in texts]
    return Merging(ns.parts).merged(new, ns.parts.embed(list(texts)), ALICE)


def test_a_memory_stating_a_stored_fact_is_merged_into_it(ns: Namespace) -> None:
    tea = ns.put("Loves green tea")
    (again,) = merged(ns, "The user loves green tea")
    assert (again.state, again.replaced_by) == (LifecycleState.MERGED, tea.id)


def test_a_memory_stating_another_value_stays_a_memory_of_its_own(ns: Namespace) -> None:
    ns.put("Lives in Lisbon")
    (porto,) = merged(ns, "Lives in Porto")
    assert (porto.state, porto.replaced_by) == (LifecycleState.ACTIVE, None)


def test_only_the_active_memories_of_the_same_owner_are_merged_into(ns: Namespace) -> None:
    ns.put("Loves green tea", BOB)
    ns.put("Loves green tea", state=LifecycleState.OUTDATED)
    (again,) = merged(ns, "The user loves green tea")
    assert again.state is LifecycleState.ACTIVE


def test_a_memory_repeating_an_earlier_one_of_its_batch_is_merged_into_that_one(ns: Namespace) -> None:
    first, second = merged(ns, "Loves green tea", "The user loves green tea")
    assert first.state is LifecycleState.ACTIVE
    assert (second.state, second.replaced_by) == (LifecycleState.MERGED, first.id)


def test_an_immutable_memory_is_never_merged(ns: Namespace) -> None:
    ns.put("Loves green tea")
    (again,) = merged(ns, "The user loves green tea", immutable=True)
    assert again.state is LifecycleState.ACTIVE
