"""The facets in the index: which rows each facet is filed under, and how a search pinned to facets uses them.

A memory's facets (what its statement claims, read by a language pack) are one of its hot fields (.row_documents); this
module alone reads them from a row, files rows under them and decides when a search pinned to facets scores only
their rows, so that a change of what the index keeps of a memory's facets stays here.

A facet filed on few of the rows searched is searched through its rows alone (their keys, scored on their codes). A
facet filed on many rows, searched among the few rows of a scope, is found by reading the facets of the scope's rows
(cheaper than checking the whole filter on each row: bench/memory_index.md). Otherwise the facet is left to the
filter, checked on the candidates of the approximate index or of the exact scan.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from mnemo.adapters.sqlite.memory_index.partitions import Hot, Partition
from mnemo.adapters.sqlite.memory_index.row_documents import FACETS_AT
from mnemo.domain import filters as f
from mnemo.domain.memory import FACETS_FIELD

FACETED_MAX = 8_192  # a facet filed on at most this many rows is searched through its rows alone
# A scoped search over at most this many rows, with a facet filed on more rows than the facet path takes (FACETED_MAX,
# or a quarter of the rows searched), reads the facets of its rows instead of checking the whole filter on each.
FACET_SCAN_MAX = 4_096
AMONG_MAX = 4_096  # at most this many rows (of a facet) are listed in a keyword query kept to them


@dataclass(frozen=True, slots=True)
class FacetChoice:
    """What the facets a search's filter pins allow it to skip."""

    facets: set[str] | None = None  # the facets the filter pins (None: it pins none)
    candidates: np.ndarray | None = None  # the keys of the only rows that can pass, few enough to score alone
    among: np.ndarray | None = None  # the keys the keyword query is kept to (a few of a facet's rows)


class FacetIndex:
    """Each facet's rows, by key."""

    def __init__(self) -> None:
        self._keys: dict[str, set[int]] = {}

    def file(self, keys: Iterable[int], hots: Iterable[Hot]) -> None:
        """These rows filed under their facets."""
        for key, hot in zip(keys, hots, strict=True):
            for facet in hot[FACETS_AT] or ():
                self._keys.setdefault(facet, set()).add(key)

    def unfile(self, rows: Iterable[tuple[int, Hot]]) -> None:
        """These rows (each key with its hot fields) taken out from under their facets."""
        for key, hot in rows:
            for facet in hot[FACETS_AT] or ():
                self._keys[facet].discard(key)

    def clear(self) -> None:
        self._keys.clear()

    def count(self, facets: set[str]) -> int:
        """How many rows are filed under these facets (at most: a row under two counts twice)."""
        return sum(len(self._keys.get(facet, ())) for facet in facets)

    def keys(self, facets: set[str]) -> np.ndarray:
        """The keys of the rows filed under any of these facets."""
        keys: set[int] = set()
        for facet in facets:
            keys |= self._keys.get(facet, set())
        return np.fromiter(keys, dtype=np.int64, count=len(keys))

    def choose(self, expr: f.Expr, scoped: Sequence[Partition] | None, rows: int) -> FacetChoice:
        """What the facets `expr` pins allow a search over `rows` rows (those of the `scoped` partitions, or all)."""
        facets = f.pinned_values(expr, FACETS_FIELD)
        if facets is None:
            return FacetChoice()
        if self.count(facets) <= min(FACETED_MAX, rows // 4):
            # A facet filed on few of the rows searched: only its rows can pass; score those alone.
            keys = self.keys(facets)
            return FacetChoice(facets, keys, keys if len(keys) <= AMONG_MAX else None)
        if scoped is not None and rows <= FACET_SCAN_MAX:
            # A facet filed on many rows, searched among a few (a user's): only those of them filed under it can
            # pass, found by their hot fields; the filter is checked on them alone, not on every row. (The keyword
            # search stays the user's: a list of rows would make its SQL new each time, prepared again.)
            return FacetChoice(facets, filed_rows(scoped, facets))
        return FacetChoice(facets)

    def allowed(self, choice: FacetChoice) -> np.ndarray | None:
        """The keys an approximate search keeps its candidates to (None: any)."""
        return self.keys(choice.facets) if choice.facets is not None else None


def filed_rows(parts: Sequence[Partition], facets: set[str]) -> np.ndarray:
    """The keys of the rows of these partitions filed under any of these facets."""
    keys = [
        part.keys[row]
        for part in parts
        for row, hot in enumerate(part.hot)
        if (filed := hot[FACETS_AT]) and not facets.isdisjoint(filed)
    ]
    return np.array(keys, dtype=np.int64)
