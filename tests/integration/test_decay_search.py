"""A decayed search (MemoryService.search with `SearchCommand.decay`) over the real SQLite store and local index,
with an embedder that gives each memory a chosen relevance to the query and a clock fixed by the test: the pool it
ranks, the order (the unclamped product), the score answered, the lifecycle order, and what it records."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain import filters as f
from mnemo.domain.memory import LifecycleState, MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.embedder import Vectors
from mnemo.services.commands import SearchCommand
from mnemo.services.decay import Decay, DecaySettings, record_multiplier
from mnemo.services.memory import MemoryService
from mnemo.services.providers import ActiveProviders, ProviderSet

NOW = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
OLD = NOW - timedelta(days=5 * 365)
DIMENSION = 128
QUERY = "zzquery"  # no memory shares a word with it: the score is the semantic one
DECAY = Decay(DecaySettings(half_life_days=30.0), NOW)
ALICE = f.Condition("user_id", "eq", "alice")


class RelevanceEmbedder:
    """The query is one axis; memory `text` gets cosine `relevance[text]` to it (and an axis of its own)."""

    name = "relevance"
    dimension = DIMENSION

    def __init__(self) -> None:
        self.relevance: dict[str, float] = {}

    def embed(self, texts: list[str]) -> Vectors:
        rows = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            if text == QUERY:
                rows[row, 0] = 1.0
                continue
            cosine = self.relevance[text]
            own = 1 + list(self.relevance).index(text) % (DIMENSION - 1)
            rows[row, 0], rows[row, own] = cosine, np.sqrt(1 - cosine**2)
        return rows


class DictAccessLog:
    def __init__(self) -> None:
        self.times: dict[str, list[datetime]] = {}
        self.recorded: list[dict[str, list[datetime]]] = []
        self.failing = False

    def record(self, accesses: Mapping[str, Sequence[datetime]]) -> None:
        self.recorded.append({k: list(v) for k, v in accesses.items()})
        for memory_id, times in accesses.items():
            self.times[memory_id] = sorted([*self.times.get(memory_id, []), *times], reverse=True)[:20]

    def recent(self, memory_ids: Sequence[str]) -> dict[str, list[datetime]]:
        if self.failing:
            raise RuntimeError("the access log is down")
        return {i: self.times[i] for i in memory_ids if i in self.times}

    def forget(self, memory_ids: Sequence[str]) -> None:
        for memory_id in memory_ids:
            self.times.pop(memory_id, None)

    def clear(self) -> None:
        self.times.clear()


class Memories:
    def __init__(self, db: Database) -> None:
        self.embedder = RelevanceEmbedder()
        self.store = SqliteMemoryStore(db)
        self.index = LocalMemoryIndex(db, DIMENSION, facets=english())
        self.accesses = DictAccessLog()
        providers = ActiveProviders(ProviderSet(embedder=self.embedder))
        self.service = MemoryService(self.store, self.index, providers, accesses=self.accesses, language=english())

    def put(self, text: str, relevance: float, at: datetime = OLD, **fields: object) -> MemoryRecord:
        self.embedder.relevance[text] = relevance
        record = replace(MemoryRecord.create(text, Scope(user_id="alice"), at=at), **fields)  # type: ignore[arg-type]
        vectors = self.embedder.embed([text])
        self.store.insert([record], vectors, [])
        self.index.upsert([record], vectors)
        return record

    def search(self, top_k: int, decay: Decay | None = DECAY, **options: object) -> list[tuple[str, float]]:
        command = SearchCommand(QUERY, ALICE, top_k=top_k, threshold=0.0, decay=decay, **options)  # type: ignore[arg-type]
        return [(r.record.text, r.score) for r in self.service.search(command)]


@pytest.fixture
def memories(tmp_path: Path) -> Iterator[Memories]:
    db = Database(tmp_path / "ns.sqlite3")
    yield Memories(db)
    db.close()


def test_the_pool_widens_to_50_candidates_and_no_further(memories: Memories):
    for rank in range(60):  # relevance 0.90, 0.89, ... by rank; all five years old but two
        fresh = rank in (45, 55)
        memories.put(f"memory {rank}", 0.90 - rank / 100, NOW if fresh else OLD)
    (best,) = memories.search(top_k=1)
    assert best[0] == "memory 45"  # ranked 46th by relevance, first by relevance × freshness (0.45 × 1.2)
    assert [t for t, _ in memories.search(top_k=3)] == ["memory 45", "memory 0", "memory 1"]
    # memory 55 (0.35 × 1.2 = 0.42) would beat memory 0 (0.9 × 0.3) too, but it is not among the best 50
    assert "memory 55" not in [t for t, _ in memories.search(top_k=5)]
    assert memories.search(top_k=1, decay=None)[0][0] == "memory 0"


def test_the_order_is_the_unclamped_product_and_the_score_the_product_within_0_and_1(memories: Memories):
    memories.put("closer", 0.95, NOW)
    used = memories.put("used often", 0.90, NOW)
    memories.accesses.record({used.id: [NOW - timedelta(minutes=m) for m in range(20)]})
    far = memories.put("far", 0.5, OLD)
    found = memories.search(top_k=3)
    assert [t for t, _ in found] == ["used often", "closer", "far"]  # 0.90 × 1.5 = 1.35 before 0.95 × 1.2 = 1.14
    assert [s for _, s in found][:2] == [1.0, 1.0]
    assert found[2][1] == pytest.approx(0.5 * record_multiplier(far, [], DECAY), abs=1e-5)


def test_the_details_show_relevance_multiplier_and_final_score(memories: Memories):
    memories.put("fresh", 0.95, NOW)
    (result,) = memories.service.search(SearchCommand(QUERY, ALICE, top_k=1, threshold=0.0, decay=DECAY))
    assert result.details["relevance_score"] == pytest.approx(0.95, abs=1e-5)
    assert result.details["decay_multiplier"] == pytest.approx(1.2)
    assert result.details["final_score"] == result.score == 1.0


def test_a_replaced_memory_stays_right_below_its_successor(memories: Memories):
    current = memories.put("current", 0.6, OLD)
    memories.put("replaced", 0.9, NOW, state=LifecycleState.SUPERSEDED, replaced_by=current.id)
    memories.put("other", 0.4, NOW - timedelta(days=10))
    states = (LifecycleState.ACTIVE, LifecycleState.SUPERSEDED)
    found = memories.search(top_k=3, states=states)
    assert [t for t, _ in found] == ["other", "current", "replaced"]
    assert found[2][1] <= found[1][1]


def test_what_is_returned_is_recorded_as_accessed_at_the_searchs_moment(memories: Memories):
    for rank in range(5):
        memories.put(f"memory {rank}", 0.9 - rank / 10)
    returned = [t for t, _ in memories.search(top_k=2)]
    assert returned == ["memory 0", "memory 1"]
    (recorded,) = memories.accesses.recorded
    assert sorted(memories.store.get(i).text for i in recorded) == returned  # type: ignore[union-attr]
    assert all(times == [NOW] for times in recorded.values())
    memories.search(top_k=2, decay=None)
    assert len(memories.accesses.recorded) == 1  # an undecayed search records nothing


def test_an_access_log_that_cannot_be_read_leaves_the_ranking_to_age(memories: Memories):
    memories.put("old", 0.9, OLD)
    memories.put("fresh", 0.5, NOW)
    memories.accesses.failing = True
    assert [t for t, _ in memories.search(top_k=2)] == ["fresh", "old"]
