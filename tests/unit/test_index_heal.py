"""The index documents of the memories a job's rerun names, written again from the record store
(mnemo.services.platform.memories.index_heal)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import cast

import numpy as np

from mnemo.domain.memory import MemoryRecord, Scope
from mnemo.ports.embedder import Vectors
from mnemo.services.memory import MemoryService
from mnemo.services.platform.memories.index_heal import reindex_memories

T0 = datetime(2026, 1, 2, tzinfo=UTC)


@dataclass
class Store:
    records: dict[str, MemoryRecord]
    reads: int = 0
    on_second_read: dict[str, MemoryRecord] = field(default_factory=dict)  # what changes while it embeds

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        self.reads += 1
        if self.reads == 2:
            self.records.update(self.on_second_read)
        return {i: self.records[i] for i in memory_ids if i in self.records}


@dataclass
class Index:
    documents: dict[str, str] = field(default_factory=dict)  # memory id -> text indexed
    removed: list[str] = field(default_factory=list)

    def upsert(self, records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        assert len(records) == len(vectors)
        self.documents.update((r.id, r.text) for r in records)

    def remove(self, memory_ids: Sequence[str]) -> None:
        self.removed.extend(memory_ids)


class Embedder:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> Vectors:
        self.texts.extend(texts)
        return np.ones((len(texts), 4), dtype=np.float32)


def service(store: Store, index: Index, embedder: Embedder) -> MemoryService:
    providers = SimpleNamespace(get=lambda: SimpleNamespace(embedder=embedder))
    return cast(MemoryService, SimpleNamespace(store=store, index=index, providers=providers))


def memory(text: str) -> MemoryRecord:
    return MemoryRecord.create(text, Scope(user_id="alice"), at=T0)


def test_the_named_memories_stored_are_indexed_again_and_the_gone_ones_removed() -> None:
    # Given two stored memories missing from the index, and one no longer stored
    bees, tea = memory("I keep bees."), memory("I like tea.")
    store, index, embedder = Store({bees.id: bees, tea.id: tea}), Index(), Embedder()
    # When a rerun names them (one twice)
    written = reindex_memories(service(store, index, embedder), [bees.id, "gone", tea.id, bees.id])
    # Then each stored one is embedded once and indexed, and the gone one's document removed
    assert written == 2
    assert index.documents == {bees.id: "I keep bees.", tea.id: "I like tea."}
    assert embedder.texts == ["I keep bees.", "I like tea."]
    assert index.removed == ["gone"]


def test_a_memory_changed_while_it_was_embedded_is_left_to_its_change() -> None:
    # Given a memory updated between the heal's read and its write (the update indexed it itself)
    bees = memory("I keep bees.")
    store, index = Store({bees.id: bees}, on_second_read={bees.id: bees.with_text("I keep two hives.")}), Index()
    # When the heal runs, then it writes nothing over the update
    assert reindex_memories(service(store, index, Embedder()), [bees.id]) == 0
    assert index.documents == {}


def test_nothing_named_is_nothing_done() -> None:
    store, index, embedder = Store({}), Index(), Embedder()
    assert reindex_memories(service(store, index, embedder), []) == 0
    assert (store.reads, index.removed, embedder.texts) == (0, [], [])
