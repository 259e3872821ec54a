"""One search of the index: its semantic candidates, its keyword matches, and their scores as hits.

The semantic candidates come from the cheapest path the filter allows: a facet's few rows (.facets), the approximate
index's nearest (.approximate) for a broad search, else the exact scan (.exact_scan). They are chosen on int8 scores,
RESCORE_MARGIN more than asked for (so that rounding does not cost a near tie), then scored again on their float32
vectors (.exact_vectors): a hit's semantic score is the exact cosine. The keyword matches come from FTS5
(.keyword_table), narrowed to the users when they hold a small share of the rows, and checked against the same filter.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from mnemo.adapters.sqlite.memory_index.candidates import best_of_keys
from mnemo.adapters.sqlite.memory_index.exact_scan import Hits, exact_top
from mnemo.adapters.sqlite.memory_index.keyword_table import KeywordTable
from mnemo.adapters.sqlite.memory_index.row_documents import ONLY_HOT, RowCheck, RowDoc
from mnemo.adapters.sqlite.memory_index.rows import IndexRows
from mnemo.domain import filters as f
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_index import IndexHit

RESCORE_MARGIN = 8  # semantic candidates chosen on int8 scores beyond the limit, before the exact rescoring


def row_check(expr: f.Expr) -> RowCheck:
    """The filter asked of each candidate row."""
    check: RowCheck = f.predicate(expr)
    if f.fields_of(expr) <= ONLY_HOT:
        check = once_per_hot_key(check)
    return check


def once_per_hot_key(check: Callable[[Any], bool]) -> RowCheck:
    """A filter that reads only the hot fields and the user, checked once per distinct RowDoc.hot_key of a search:
    the rows of a user mostly share a few (their agent, state, facets), and the whole check costs more than a
    lookup."""
    known: dict[tuple[Any, ...], bool] = {}

    def once(doc: RowDoc) -> bool:
        key = doc.hot_key
        try:
            passed = known.get(key)
        except TypeError:  # a value that cannot be a key (none of the index's own): checked as it is
            return check(doc)
        if passed is None:
            passed = known[key] = check(doc)
        return passed

    return once


class IndexSearch:
    """Searches the index's rows and keyword table, under the index lock where they read its memory."""

    def __init__(self, rows: IndexRows, keywords: KeywordTable, lock: threading.RLock) -> None:
        self._rows = rows
        self._keywords = keywords
        self._lock = lock

    def search(self, vector: Vectors, query_text: str, expr: f.Expr, limit: int) -> list[IndexHit]:
        check = row_check(expr)
        users = f.pinned_values(expr, "user_id")
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        wide = limit + RESCORE_MARGIN if limit > 0 else 0
        with self._lock:
            semantic, among, narrow = self._semantic(query, expr, check, users, wide)
        keyword = self._keyword(query_text, users, check, limit, narrow, among)
        exact = self._rows.exact.cosines([i for i, _ in semantic] + [i for i, _ in keyword], query)
        return self._hits(semantic, keyword, exact, query, limit)

    def _semantic(
        self, query: np.ndarray, expr: f.Expr, check: RowCheck, users: set[str] | None, wide: int
    ) -> tuple[Hits, np.ndarray | None, bool]:
        """The best `wide` rows passing the filter by int8 score; the rows the keyword query is kept to (None: any);
        whether the keyword query is narrowed to the users."""
        partitions = self._rows.partitions
        total = len(partitions.keys)
        scoped = partitions.scoped(users)
        rows = sum(len(p) for p in scoped) if scoped is not None else total
        choice = self._rows.facets.choose(expr, scoped, rows)
        semantic = None
        if choice.candidates is not None:
            semantic = best_of_keys(partitions, choice.candidates, query, check, wide, scoped)
        elif self._rows.approximate.usable(rows, total):
            # Broad: the approximate index's candidates (those under the facet first, when one is asked for).
            allowed = self._rows.facets.allowed(choice)
            semantic = self._rows.approximate.top(partitions, query, check, wide, scoped, allowed)
        if semantic is None:
            parts = scoped if scoped is not None else partitions.live()
            semantic = exact_top(parts, query, check, wide, partitions.documents)
        return semantic, choice.among, users is not None and 4 * rows < total

    def _keyword(
        self,
        text: str,
        users: set[str] | None,
        check: RowCheck,
        limit: int,
        narrow: bool,
        among: np.ndarray | None,
    ) -> Hits:
        """The best `limit` keyword matches passing `check`; among the `among` rows only, when given."""
        if limit <= 0 or (among is not None and not len(among)):
            return []
        partitions = self._rows.partitions
        query = self._keywords.query(text, users, narrow, among, len(partitions.keys))
        if query is None:
            return []
        found: Hits = []
        for rows in self._keywords.ranked(query, limit):
            found = []
            with self._lock:  # only the checks against the in-memory documents hold it
                for memory_id, score in rows:
                    if memory_id in partitions.keys and check(partitions.doc(memory_id)):
                        found.append((memory_id, float(score)))
                        if len(found) == limit:
                            return found
        return found

    def _hits(
        self, semantic: Hits, keyword: Hits, exact: dict[str, float], query: np.ndarray, limit: int
    ) -> list[IndexHit]:
        """The best `limit` semantic candidates by exact score, and every keyword match, as hits."""
        ranked = sorted(((i, exact.get(i, score)) for i, score in semantic), key=lambda hit: -hit[1])[:limit]
        hits = {memory_id: IndexHit(memory_id, score, 0.0) for memory_id, score in ranked}
        partitions = self._rows.partitions
        with self._lock:  # taken once for the keyword hits, not once each: under load every search contends for it
            for memory_id, bm25 in keyword:
                if memory_id not in partitions.keys:  # removed since the keyword query ran
                    continue
                similarity = exact.get(memory_id)
                if similarity is None:
                    similarity = partitions.similarity(memory_id, query)
                hits[memory_id] = IndexHit(memory_id, similarity, bm25)
        return sorted(hits.values(), key=lambda h: (-h.semantic, -h.keyword))
