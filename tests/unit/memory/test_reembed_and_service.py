"""Embedding a namespace again (services/memory/reembed.py), and the facade over the pipelines
(services/memory/service.py): what it exposes and what it hands on."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mnemo.domain import filters as f
from mnemo.domain.erasure import Erasure
from mnemo.domain.memory import Event, MemoryRecord
from mnemo.language.en import english
from mnemo.ports.embedder import Vectors
from mnemo.services.commands import AddCommand, Message, SearchCommand
from mnemo.services.memory import AddPolicy, MemoryService
from mnemo.services.memory.reembed import reembed_all
from mnemo.services.memory.search.fuse import RankingWeights
from mnemo.services.providers import ProviderSet
from tests.unit.memory.fakes import ALICE, ListAccessLog, Namespace, WordEmbedder


class ShiftedEmbedder(WordEmbedder):
    """Another embedder of the same width: every vector rolled by one place."""

    def embed(self, texts: list[str]) -> Vectors:
        rolled: Vectors = np.roll(super().embed(texts), 1, axis=1)
        return rolled


def test_every_memory_is_embedded_again_by_the_embedder_in_use(ns: Namespace) -> None:
    ns.put("Likes tea")
    ns.put("Likes coffee")
    shifted = ShiftedEmbedder()
    ns.providers.swap(ProviderSet(embedder=shifted))

    assert reembed_all(ns.parts) == 2

    ((records, vectors),) = list(ns.store.scan())
    assert np.allclose(vectors, shifted.embed([r.text for r in records]), atol=1e-3)
    assert ns.index.count() == 2


def test_the_facade_exposes_its_parts_and_hands_each_use_case_on(ns: Namespace) -> None:
    log, weights, policy = ListAccessLog(), RankingWeights(0.7, 0.3), AddPolicy(merge=True)
    service = MemoryService(ns.store, ns.index, ns.providers, weights, policy, log, language=english())
    assert (service.store, service.index, service.providers) == (ns.store, ns.index, ns.providers)
    assert (service.weights, service.policy, service.accesses, service.reranker) == (weights, policy, log, None)

    (added,) = service.add(AddCommand([Message("user", "Likes tea")], ALICE, infer=False))
    assert added.event is Event.ADD
    found = service.search(SearchCommand("tea", f.Condition("user_id", "eq", "alice"), threshold=0.0))
    assert [r.record.id for r in found] == [added.record.id]
    assert service.get(added.record.id) == added.record


def test_the_listener_set_on_the_facade_is_told_of_each_delete(ns: Namespace) -> None:
    service = MemoryService(ns.store, ns.index, ns.providers, language=english())
    told: list[list[str]] = []

    def on_erased(erasure: Erasure, records: Sequence[MemoryRecord]) -> None:
        told.append([r.id for r in records])

    assert service.on_erased is None
    service.on_erased = on_erased
    tea = ns.put("Likes tea")
    service.delete(tea.id)
    assert service.on_erased is on_erased and told == [[tea.id]]


def test_the_default_weights_and_policy(ns: Namespace) -> None:
    service = MemoryService(ns.store, ns.index, ns.providers, language=english())
    assert (service.weights, service.policy, service.accesses) == (RankingWeights(), AddPolicy(), None)
