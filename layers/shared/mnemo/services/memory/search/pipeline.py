"""One search, from its command to its results: checked, the candidates retrieved (retrieve.py), their scores fused
(fuse.py), then reranked (rerank.py) or put in the context of their moment, boosted for the time the query names
(context.py), decayed (decay.py), and a replaced memory put below its successor (successors.py)."""

from __future__ import annotations

from mnemo.domain.memory import ACTIVE_ONLY
from mnemo.errors import ValidationError
from mnemo.services.commands import SearchCommand, SearchResult
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.search.context import in_context, in_the_time_asked
from mnemo.services.memory.search.decay import Decaying, clamped
from mnemo.services.memory.search.first_person import FirstPerson
from mnemo.services.memory.search.fuse import fuse
from mnemo.services.memory.search.rerank import RERANK_UNAVAILABLE, reranked
from mnemo.services.memory.search.retrieve import Retrieval
from mnemo.services.memory.search.successors import below_their_successors, weighted


class SearchPipeline:
    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts
        self._retrieval = Retrieval(parts, FirstPerson(parts))
        self._decaying = Decaying(parts.accesses)

    def search(self, command: SearchCommand) -> list[SearchResult]:
        """The best `top_k` memories for the query: relevance (`_relevant`), a current fact ranked above the ones it
        replaced when those are asked for, and with `command.decay` each memory's relevance times its freshness
        multiplier (mnemo.services.decay): the pool widens to max(top_k × 3, 50), memories are sorted by the product,
        the score answered is the product within [0, 1] (so it may fall below the threshold, which applied to
        relevance), and what is returned is recorded as accessed (written later, off this path)."""
        query = self._checked(command)
        if command.top_k == 0:
            return []
        decay = command.decay
        found = self._relevant(command, query)
        if decay is not None:
            found = self._decaying.decayed(found, decay)
        if tuple(command.states) != ACTIVE_ONLY:  # a current fact ranks above the ones it replaced
            found = below_their_successors(weighted(found))
        if decay is None:
            return found[: command.top_k]
        kept = [clamped(r) for r in found[: command.top_k]]
        self._decaying.reinforce(kept, decay)
        return kept

    def _checked(self, command: SearchCommand) -> str:
        """The query, stripped; a ValidationError for a search that cannot be made."""
        query = command.query.strip()
        if not query:
            raise ValidationError("Invalid query: cannot be empty or whitespace-only.")
        if not 0.0 <= command.threshold <= 1.0:
            raise ValidationError(f"Invalid threshold: {command.threshold}. Must be between 0 and 1 (inclusive).")
        if command.top_k < 0:
            raise ValidationError("top_k must be zero or more.")
        if command.rerank and self._parts.reranker is None:
            raise ValidationError(RERANK_UNAVAILABLE)
        return query

    def _relevant(self, command: SearchCommand, query: str) -> list[SearchResult]:
        """The candidates by relevance, best first: the fused score (the threshold on its semantic part) plus the
        context of each memory's moment (`in_context`), or with `rerank` the reranker's score; then the boost of the
        memories of the time the query names."""
        retrieved = self._retrieval.retrieve(command, query)
        ranked = fuse(
            retrieved.hits,
            threshold=command.threshold,
            top_k=len(retrieved.hits) if command.rerank else retrieved.pool,
            weights=self._parts.weights,
            answers=retrieved.answers,
        )
        records = self._parts.store.get_many([r.memory_id for r in ranked])
        found = [SearchResult(records[r.memory_id], r.score, r.details) for r in ranked if r.memory_id in records]
        found = reranked(self._parts.reranker, command.query, found) if command.rerank else in_context(found)
        return in_the_time_asked(self._parts.language, found, retrieved.query, command.reference_date)
