"""What the index holds in memory, changed as one: the partitions' rows, the facets' keys, the float32 vectors and
the approximate index. Every change of rows (a write of this process, another process's change, a load) goes through
here, so that the four never disagree."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from mnemo.adapters.sqlite.memory_index import int8_vectors
from mnemo.adapters.sqlite.memory_index.approximate import ApproximateSearch
from mnemo.adapters.sqlite.memory_index.exact_vectors import ExactVectors
from mnemo.adapters.sqlite.memory_index.facets import FacetIndex
from mnemo.adapters.sqlite.memory_index.partitions import Partitions
from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors


class IndexRows:
    """The in-memory side of the index. `removed` says whether rows were taken out (or replaced) since the last
    purge of the keyword table. The caller holds the index lock and has set the memories' keys in
    `partitions.keys` before it adds their rows."""

    def __init__(
        self, partitions: Partitions, facets: FacetIndex, exact: ExactVectors, approximate: ApproximateSearch
    ) -> None:
        self.partitions = partitions
        self.facets = facets
        self.exact = exact
        self.approximate = approximate
        self.removed = False

    def add(self, records: Sequence[MemoryRecord], vectors: Vectors, keys: Sequence[int]) -> None:
        """The rows of these records, under these keys (the approximate index is the caller's to update)."""
        codes, scales = int8_vectors.quantize(vectors)
        self.exact.put([record.id for record in records], vectors)
        hots = self.partitions.add(records, codes, scales, keys)
        self.facets.file(keys, hots)

    def upsert(
        self, records: Sequence[MemoryRecord], vectors: Vectors, keys: Sequence[int], replaced: Sequence[int]
    ) -> None:
        """The rows of these records, under these keys (the rows of the `replaced` keys taken out first)."""
        self.detach(replaced)
        if not self.partitions.by_user:
            # An empty index takes the width it is given: after clear() the embedder may have changed.
            self.partitions.dimension = int(np.asarray(vectors).shape[1])
        self.add(records, vectors, keys)
        self.approximate.replace(replaced, keys, vectors)
        self.approximate.refresh(self.partitions)
        self.removed = self.removed or bool(replaced)

    def remove(self, memory_ids: Sequence[str]) -> None:
        """These memories' rows and keys taken out."""
        gone = [key for i in memory_ids if (key := self.partitions.keys.pop(i, None)) is not None]
        self.exact.drop(memory_ids)
        self.detach(gone)
        self.approximate.remove(gone)
        self.removed = self.removed or bool(gone)

    def detach(self, keys: Iterable[int]) -> None:
        """The rows of these keys taken out (their keys stay assigned)."""
        self.facets.unfile(self.partitions.detach(keys))

    def reset(self) -> None:
        """Every row taken out: an empty index."""
        self.exact.clear()
        self.facets.clear()
        self.partitions.reset()
        self.approximate.drop()
