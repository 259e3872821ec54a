"""The memory use cases of one namespace, as one facade over the pipelines that make them: it builds the shared
parts and each pipeline once, through their constructors, and each of its methods is one use case handed to the
pipeline that owns it (add/, search/, erase.py, update.py, consolidate.py, reads.py)."""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.domain import filters as f
from mnemo.domain.entities import EntityCount
from mnemo.domain.memory import ACTIVE_ONLY, HistoryEntry, LifecycleState, MemoryRecord
from mnemo.language import Language
from mnemo.ports.memory_access import AccessLog
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_store import MemoryStore
from mnemo.ports.reranker import Reranker
from mnemo.services.commands import (
    AddCommand,
    AddResult,
    ConsolidateCommand,
    ConsolidationChange,
    SearchCommand,
    SearchResult,
    UpdateCommand,
)
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.add.pipeline import AddPipeline
from mnemo.services.memory.consolidate import Consolidation
from mnemo.services.memory.erase import Erasing, ErasureListener
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.memory.reads import Reads
from mnemo.services.memory.reembed import reembed_all
from mnemo.services.memory.search.fuse import RankingWeights
from mnemo.services.memory.search.pipeline import SearchPipeline
from mnemo.services.memory.update import Updating
from mnemo.services.providers import ActiveProviders


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        index: MemoryIndex,
        providers: ActiveProviders,
        weights: RankingWeights | None = None,
        policy: AddPolicy | None = None,
        accesses: AccessLog | None = None,
        *,
        reranker: Reranker | None = None,
        language: Language,
    ) -> None:
        """`accesses`: the log of the memories' retrievals (a platform project's): a decayed search ranks by it and
        records what it returns there; without one, decay counts the memories' age alone. `reranker`: what a search
        with `rerank` re-scores its candidates with (without one, such a search is a 400). `language`: the language pack
        (mnemo.language) the pipelines read statements and queries with."""
        parts = MemoryParts(
            store,
            index,
            providers,
            weights or RankingWeights(),
            policy or AddPolicy(),
            accesses,
            reranker,
            language=language,
        )
        self._parts = parts
        # What the namespace's owner reads (and the benchmarks build further services on).
        self.store, self.index, self.providers, self.weights = store, index, providers, parts.weights
        self.policy, self.accesses, self.reranker = parts.policy, accesses, reranker
        self.language = language
        categorizing, merging, inserting = Categorizing(parts), Merging(parts), Inserting(parts)
        filing = Filing(parts, categorizing, merging, inserting)
        self._erasing = Erasing(parts)
        self._adding = AddPipeline(parts, filing, self._erasing)
        self._searching = SearchPipeline(parts)
        self._updating = Updating(parts, categorizing)
        self._consolidation = Consolidation(parts, categorizing, merging, inserting)
        self._reads = Reads(store)

    @property
    def on_erased(self) -> ErasureListener | None:
        """Told of each delete once it is done (a platform project's: scrubs its records); set by its owner."""
        return self._erasing.on_erased

    @on_erased.setter
    def on_erased(self, listener: ErasureListener | None) -> None:
        self._erasing.on_erased = listener

    def add(self, command: AddCommand, *, meter: UsageMeter | None = None) -> list[AddResult]:
        """Store what the add says. `meter`: counts the usage of the add's LLM calls (none on the paths that call
        no LLM), also when the add fails after some."""
        return self._adding.add(command, meter)

    def consolidate(self, command: ConsolidateCommand) -> list[ConsolidationChange]:
        """Apply what a Dream run decided about one scope's memories, to the memories as they are now."""
        return self._consolidation.consolidate(command)

    def get(self, memory_id: str) -> MemoryRecord:
        return self._reads.get(memory_id)

    def get_all(
        self,
        filters: f.Expr,
        *,
        top_k: int | None = 20,
        show_expired: bool = False,
        offset: int = 0,
        states: Sequence[LifecycleState] = ACTIVE_ONLY,
    ) -> list[MemoryRecord]:
        """The memories `filters` match, in the lifecycle `states` asked for (active only by default)."""
        return self._reads.get_all(filters, top_k=top_k, show_expired=show_expired, offset=offset, states=states)

    def count(
        self, filters: f.Expr, *, show_expired: bool = False, states: Sequence[LifecycleState] = ACTIVE_ONLY
    ) -> int:
        return self._reads.count(filters, show_expired=show_expired, states=states)

    def entity_counts(self) -> list[EntityCount]:
        """Every user, agent, app and run that has active memories, with their count."""
        return self._reads.entity_counts()

    def search(self, command: SearchCommand) -> list[SearchResult]:
        """The best `top_k` memories for the query (search/pipeline.py)."""
        return self._searching.search(command)

    def history(self, memory_id: str) -> list[HistoryEntry]:
        return self._reads.history(memory_id)

    def update(self, command: UpdateCommand) -> MemoryRecord:
        return self._updating.update(command)

    def delete(self, memory_id: str) -> None:
        self._erasing.delete(memory_id)

    def delete_all(self, filters: f.Expr) -> int:
        return self._erasing.delete_all(filters)

    def delete_many(self, memory_ids: Sequence[str]) -> list[str]:
        """Delete the memories of these ids that are stored, as one operation. Their ids, in the order asked."""
        return self._erasing.delete_many(memory_ids)

    def reset(self) -> None:
        self._erasing.reset()

    def reembed_all(self) -> int:
        """Embed every stored memory again with the current embedder (after the embedder changed)."""
        return reembed_all(self._parts)
