"""New memories written to the store and the index (services/memory/add/inserting.py), and what an insert does when
another process sharing the store stored one of its texts first."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mnemo.domain.memory import Event, LifecycleState, MemoryRecord
from mnemo.services.memory.add.inserting import Inserting, stored_as
from tests.unit.memory.fakes import ALICE, Namespace


def test_new_memories_are_stored_with_their_history_and_indexed(ns: Namespace) -> None:
    tea = MemoryRecord.create("Likes tea", ALICE)
    merged = replace(MemoryRecord.create("Likes tea a lot", ALICE), state=LifecycleState.MERGED, replaced_by=tea.id)

    results = Inserting(ns.parts).insert_new([tea, merged], ns.parts.embed([tea.text, merged.text]), ALICE)

    assert [(r.record.id, r.event) for r in results] == [(tea.id, Event.ADD), (merged.id, Event.NONE)]
    assert [(e.event, e.new_memory) for e in ns.store.history(merged.id)] == [(Event.NONE, "Likes tea a lot")]
    assert ns.index.count() == 2


def test_a_text_another_process_stored_first_is_answered_as_that_memory(make_namespace: Any) -> None:
    # Given a store shared with another process, which stored "Likes tea" since the add looked
    ns = make_namespace(shared=True)
    winner = ns.put("Likes tea")
    tea, coffee = MemoryRecord.create("Likes tea", ALICE), MemoryRecord.create("Likes coffee", ALICE)

    # When the add inserts its batch
    results = Inserting(ns.parts).insert_new([tea, coffee], ns.parts.embed([tea.text, coffee.text]), ALICE)

    # Then the batch is settled one by one: the known text answers the winner, the rest is added
    assert [(r.record.id, r.event) for r in results] == [(winner.id, Event.NONE), (coffee.id, Event.ADD)]
    assert set(ns.memories()) == {"Likes tea", "Likes coffee"}
    assert ns.index.count() == 2


def test_a_merged_memory_is_stored_as_none_and_any_other_as_add() -> None:
    record = MemoryRecord.create("Likes tea", ALICE)
    assert stored_as(record) is Event.ADD
    assert stored_as(replace(record, state=LifecycleState.MERGED)) is Event.NONE
