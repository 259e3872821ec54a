"""What every memory pipeline works with: one namespace's store, index and access log, the providers in use, the
ranking weights, the add policy, the language pack it reads statements and queries with (mnemo.language), the
reranker, and the one lock the namespace's writes take. The facade builds it once and hands it to each pipeline's
constructor, so that the pipelines share this state without knowing one another."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from mnemo.language import Language
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_access import AccessLog
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_store import MemoryStore
from mnemo.ports.reranker import Reranker
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.memory.search.fuse import RankingWeights
from mnemo.services.providers import ActiveProviders


@dataclass(frozen=True, slots=True)
class MemoryParts:
    """`accesses`: the log of the memories' retrievals (a platform project's), or None. `reranker`: what a search
    with `rerank` re-scores its candidates with, or None. `write_lock`: held by every change of the namespace's
    memories, so that each reads what it changes as it is."""

    store: MemoryStore
    index: MemoryIndex
    providers: ActiveProviders
    weights: RankingWeights
    policy: AddPolicy
    accesses: AccessLog | None = None
    reranker: Reranker | None = None
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    language: Language = field(kw_only=True)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The texts' embeddings by the embedder in use now."""
        return self.providers.get().embedder.embed(list(texts))

    def embed_query(self, query: str) -> Vectors:
        vector: Vectors = self.providers.get().embedder.embed([query])[0]
        return vector
