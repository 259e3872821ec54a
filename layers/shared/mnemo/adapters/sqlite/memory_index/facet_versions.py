"""Facets read with another version of the rules, read again by the index itself.

A memory's facets are read by a language pack (mnemo.ports.facets `FacetReader`) whose version changes whenever the
facets of a text may. The index keeps them in memory with each row's hot fields, and its snapshot stores them with the
version that read them. A snapshot written with another version (or before versions were written: every older data
dir) is restored all the same, its rows noted stale, and their facets read again from their memories' text a batch at
a time, before the index's next searches, under its lock: no search waits for more than one batch, every search
still answers meanwhile, and the progress is logged ("re-deriving facets: 12,000 of 48,000"). A snapshot written
while rows are still stale says so (no version): the next start reads them all again.
"""

from __future__ import annotations

import logging

import numpy as np

from mnemo.adapters.sqlite.memory_index.rows import IndexRows
from mnemo.ports.facets import FacetReader

_log = logging.getLogger(__name__)

BATCH = 500  # the stale rows read again before one search


class StaleFacets:
    """The keys of the rows whose facets another version of the rules read, and how many were read again."""

    def __init__(self, reader: FacetReader, batch: int = BATCH) -> None:
        self._reader = reader
        self._batch = batch
        self._keys: list[int] = []
        self._total = 0

    @property
    def version(self) -> str:
        return self._reader.version

    @property
    def pending(self) -> int:
        return len(self._keys)

    def clear(self) -> None:
        """Nothing stale: every row was read with this version (a load from the records)."""
        self._keys, self._total = [], 0

    def restored(self, keys: np.ndarray, version: str | None) -> None:
        """Rows restored from a snapshot whose facets `version` read: stale unless it is this one."""
        stale = [] if version == self.version else keys.tolist()
        self._keys, self._total = stale, len(stale)
        if stale:
            _log.info(
                "facets of %s rows were read with rules %s, not %s: re-deriving them", len(stale), version, self.version
            )

    def rederive(self, rows: IndexRows, limit: int | None = None) -> int:
        """Up to `limit` (a batch; None: all) stale rows given the facets their memories' text states now; how many.
        The caller holds the index lock."""
        if not self._keys:
            return 0
        count = len(self._keys) if limit is None else min(limit, len(self._keys))
        batch, self._keys = self._keys[-count:], self._keys[:-count]
        for key in batch:
            _refile(rows, key)
        _log.info("re-deriving facets: %s of %s", f"{self._total - len(self._keys):,}", f"{self._total:,}")
        return count

    def step(self, rows: IndexRows) -> int:
        """One batch (before a search)."""
        return self.rederive(rows, self._batch) if self._keys else 0


def _refile(rows: IndexRows, key: int) -> None:
    """The row of `key` (if it still has one) filed under the facets its memory's document states now."""
    partitions = rows.partitions
    if (
        partitions.documents is None
        or key >= len(partitions.slot_part)
        or (number := int(partitions.slot_part[key])) < 0
    ):
        return
    part = partitions.numbered[number]
    assert part is not None
    row = int(partitions.slot_row[key])
    doc = partitions.documents(part.ids[row])
    if doc is None:
        return  # the memory is gone; its row goes with the next change the index follows
    old, new = part.hot[row], partitions.hot_of(doc)
    rows.facets.unfile([(key, old)])
    part.hot[row] = new
    rows.facets.file([key], [new])
