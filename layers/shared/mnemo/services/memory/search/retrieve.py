"""A search's candidates: the query read in the first person when it names the one user searched
(first_person.py), the index's best semantic and keyword matches within what the search may see, and the memories
that state what the query asks about (`asked_facets`: where one lives, works…), whatever their score."""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.domain import filters as f
from mnemo.domain.memory import FACETS_FIELD
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_index import IndexHit
from mnemo.services.commands import SearchCommand
from mnemo.services.decay import DECAY_POOL
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.scoping import visible
from mnemo.services.memory.search.first_person import FirstPerson
from mnemo.services.memory.search.rerank import RERANK_POOL

POOL = 30  # a search ranks at least this many candidates (max(top_k × 3, 30))
ANSWER_CANDIDATES = 10  # the memories stating what a question asks about that a search adds to its candidates


@dataclass(frozen=True, slots=True)
class Retrieved:
    """What the index found: `query` as it was read (in the first person, perhaps), the hits, the ids of the hits
    that state what the query asks about, and how many candidates the search ranks."""

    query: str
    hits: list[IndexHit]
    answers: frozenset[str]
    pool: int


class Retrieval:
    def __init__(self, parts: MemoryParts, first_person: FirstPerson) -> None:
        self._parts = parts
        self._first_person = first_person

    def retrieve(self, command: SearchCommand, query: str) -> Retrieved:
        """The candidates of the search (`keyword` false: no keyword candidates or scores)."""
        pool = pool_size(command)
        seen = visible(command.filters, command.show_expired, command.states)
        query, vector = self._first_person.read(query, seen)
        hits = self._parts.index.search(vector, query if command.keyword else "", seen, pool)
        answers = self._answers(vector, query, seen, command.top_k)
        listed = {c.memory_id for c in hits}  # made once, not once per answer
        hits += [h for h in answers if h.memory_id not in listed]
        return Retrieved(query, hits, frozenset(h.memory_id for h in answers), pool)

    def _answers(self, vector: Vectors, query: str, seen: f.Expr, top_k: int) -> list[IndexHit]:
        """The memories that state what the query asks about (where one lives, works…: asked_facets), the closest
        first, whatever their score: a current fact must not fall under the threshold because its words are far
        from the question's."""
        asked = self._parts.language.asked_facets(query)
        if not asked:
            return []
        about = f.conjoin(seen, f.Condition(FACETS_FIELD, "in", asked))
        return self._parts.index.search(vector, "", about, max(top_k, ANSWER_CANDIDATES))


def pool_size(command: SearchCommand) -> int:
    """How many candidates the search ranks: max(top_k × 3, 30), at least DECAY_POOL with decay and RERANK_POOL with
    rerank."""
    wide = max(command.top_k * 3, DECAY_POOL if command.decay is not None else POOL)
    return max(wide, RERANK_POOL) if command.rerank else wide
