"""An add that loses a race to another process sharing the store (as on DynamoDB): the store refuses the
duplicate, and the service reports the winner's memory as already known instead of failing the whole add."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo.composition.container import Container
from mnemo.domain import filters as f
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope
from mnemo.ports.memory_store import DuplicateMemoryError
from mnemo.services.commands import AddCommand, Message, SearchCommand

ALICE = Scope(user_id="alice")
TEXTS = ["I keep bees on the roof.", "My sister lives in Porto.", "I am allergic to walnuts."]


def test_given_another_process_stores_a_text_first_when_added_then_that_text_is_known_and_the_rest_added(
    container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = container.memory_service.store
    real_insert = store.insert
    winner = MemoryRecord.create(TEXTS[1], ALICE)
    calls: list[int] = []

    def racing_insert(records: Any, vectors: Any, history: Any) -> None:
        calls.append(len(records))
        if len(calls) == 1:  # the other process commits its copy of TEXTS[1] just before this batch
            real_insert([winner], vectors[:1], [HistoryEntry.of(Event.ADD, winner, None, winner.text)])
            raise DuplicateMemoryError(winner.id, ALICE, winner.hash)
        real_insert(records, vectors, history)

    monkeypatch.setattr(store, "insert", racing_insert)

    results = container.memory_service.add(AddCommand([Message("user", t) for t in TEXTS], ALICE, infer=False))

    assert [(r.record.text, r.event) for r in results] == [
        (TEXTS[0], Event.ADD),
        (TEXTS[1], Event.NONE),
        (TEXTS[2], Event.ADD),
    ]
    assert results[1].record.id == winner.id
    assert calls == [3, 1, 1]  # the batch, then one by one: the known text is not sent again
    stored = container.memory_service.get_all(f.parse({"user_id": "alice"}))
    assert sorted(r.text for r in stored) == sorted(TEXTS)
    found = container.memory_service.search(SearchCommand("Who keeps bees?", f.parse({"user_id": "alice"}), top_k=1))
    assert found[0].record.id == results[0].record.id
