"""What the in-process index keeps of each memory to check filters: a small tuple per row, not its whole document.

A whole filter document (a dict of a dozen fields, the text among them) per memory would be most of what a large
index holds (bench/memory_index.md). The index keeps, per row, only the fields every search filters by — the entity
ids, the lifecycle state, the expiration date, the facets — as one tuple of shared values (`HOT`); the user is the
row's partition and the id its own. A filter on any other field (metadata, categories, dates, the text…) reads the
memory's whole document from a `DocumentSource` (the record store), one candidate at a time; without a source (an
index alone, as in the contract tests) the whole documents are kept in memory beside the tuples.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from mnemo.domain.memory import FACETS_FIELD

Doc = Mapping[str, Any]
DocumentSource = Callable[[str], Doc | None]  # a memory's index document (MemoryRecord.index_document), or None
VectorSource = Callable[[Sequence[str]], Mapping[str, np.ndarray]]  # the float32 embeddings of those memories it has
RowCheck = Callable[["RowDoc"], bool]  # a search's filter, asked of one row's document

HOT = ("agent_id", "run_id", "app_id", "actor_id", "role", "state", "expiration_date", FACETS_FIELD)
_HOT_AT = {name: at for at, name in enumerate(HOT)}
FACETS_AT = _HOT_AT[FACETS_FIELD]
_EMPTY: dict[str, Any] = {}
ONLY_HOT = frozenset({*HOT, "user_id"})  # the fields a row's RowDoc.hot_key answers for


class Interner:
    """One shared object per distinct value (ids, states, facet lists), so that a million tuples share them."""

    def __init__(self) -> None:
        self._values: dict[Any, Any] = {}

    def hot(self, doc: Doc) -> tuple[Any, ...]:
        values = []
        for name in HOT:
            value = doc.get(name)
            if isinstance(value, list):
                value = tuple(value)
            values.append(self._values.setdefault(value, value) if _hashable(value) else value)
        return tuple(values)


def _hashable(value: Any) -> bool:
    return value is None or isinstance(value, str | tuple)


class RowDoc(Mapping[str, Any]):
    """The filter document of one row: its hot fields from the tuple, the others read on first use."""

    __slots__ = ("_cold", "_full", "_hot", "_id", "_user")

    def __init__(
        self, memory_id: str, user: str | None, hot: tuple[Any, ...], cold: Callable[[], Doc | None] | Doc
    ) -> None:
        self._id = memory_id
        self._user = user
        self._hot = hot
        self._cold = cold
        self._full: Doc | None = None

    @property
    def hot_key(self) -> tuple[str | None, tuple[Any, ...]]:
        """What a filter of the hot fields and the user alone depends on (ONLY_HOT): rows with equal keys pass alike."""
        return self._user, self._hot

    def get(self, name: str, default: Any = None) -> Any:
        at = _HOT_AT.get(name)
        if at is not None:
            value = self._hot[at]
            return list(value) if isinstance(value, tuple) else value
        if name == "user_id":
            return self._user
        if name == "id":
            return self._id
        return self._document().get(name, default)

    def _document(self) -> Doc:
        if self._full is None:
            cold = self._cold
            self._full = (cold if isinstance(cold, Mapping) else cold()) or _EMPTY
        return self._full

    def __getitem__(self, name: str) -> Any:
        marker = object()
        value = self.get(name, marker)
        if value is marker:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._document())

    def __len__(self) -> int:
        return len(self._document())
