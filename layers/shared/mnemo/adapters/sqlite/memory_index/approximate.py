"""The approximate path of a broad search: when the faiss index (.faiss_index) exists, how it keeps up with the rows,
and how its nearest candidates become a search's semantic hits.

It is built once the index holds `ann_min_rows` rows, trained again when the rows have grown eightfold since it was
trained (its lists would be too long), and dropped when they fall below half. A search over many rows asks it for
candidates, keeps those of the partitions (and facets) searched, and checks the filter on them in the order of the
faiss index's own scores; when too few pass even among `ann_max_candidates`, the caller scans exactly.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from mnemo.adapters.sqlite.memory_index.candidates import best_of_keys
from mnemo.adapters.sqlite.memory_index.exact_scan import ROW_CHUNK, Hits
from mnemo.adapters.sqlite.memory_index.faiss_index import ApproximateIndex
from mnemo.adapters.sqlite.memory_index.partitions import Partition, Partitions
from mnemo.adapters.sqlite.memory_index.row_documents import RowCheck
from mnemo.adapters.sqlite.memory_index.tuning import IndexTuning
from mnemo.ports.embedder import Vectors

SAMPLE_SEED = 5  # the rows a (re)training samples are drawn alike on every run


class ApproximateSearch:
    """The faiss index of the rows (`index`, None until the rows are many enough) and its use by a search."""

    def __init__(self, tuning: IndexTuning) -> None:
        self._tuning = tuning
        self.index: ApproximateIndex | None = None

    def usable(self, rows: int, total: int) -> bool:
        """Whether a search over `rows` of the `total` rows asks the approximate index first."""
        return self.index is not None and rows >= self._tuning.ann_min_rows and 4 * rows >= total

    def replace(self, removed: Sequence[int], keys: Sequence[int], vectors: Vectors) -> None:
        """The rows of the `removed` keys taken out, these rows put in (nothing while there is no index)."""
        if self.index is not None:
            self.index.remove(np.asarray(removed, dtype=np.int64))
            self.index.add(np.asarray(keys, dtype=np.int64), np.asarray(vectors, dtype=np.float32))

    def remove(self, keys: Sequence[int]) -> None:
        if self.index is not None:
            self.index.remove(np.asarray(keys, dtype=np.int64))

    def drop(self) -> None:
        self.index = None

    def read(self, path: Path, trained_on: int) -> None:
        """The index a snapshot saved."""
        self.index = ApproximateIndex.read(path, self._tuning.ann_nprobe, trained_on)

    def refresh(self, partitions: Partitions) -> None:
        """Build the approximate index once the rows reach `ann_min_rows`; train it again when they have grown
        eightfold since it was trained; drop it when they fall below half."""
        rows = len(partitions.keys)
        if rows < self._tuning.ann_min_rows:
            if self.index is not None and rows < self._tuning.ann_min_rows // 2:
                self.index = None
            return
        if self.index is not None and rows < 8 * max(self.index.trained_on, 1):
            return
        rng = np.random.default_rng(SAMPLE_SEED)
        rate = ApproximateIndex.sample_size(rows) / rows
        sample = [vectors[rng.random(len(vectors)) < rate] for _, vectors in _chunks(partitions)]
        index = ApproximateIndex.trained(np.concatenate(sample), rows, self._tuning.ann_nprobe)
        for keys, vectors in _chunks(partitions):
            index.add(keys, vectors)
        self.index = index

    def top(
        self,
        partitions: Partitions,
        query: np.ndarray,
        check: RowCheck,
        limit: int,
        parts: Sequence[Partition] | None,
        allowed: np.ndarray | None = None,
    ) -> Hits | None:
        """The best `limit` rows passing `check` among the approximate index's nearest candidates (only those among
        the `allowed` keys, when given), scored on their int8 codes; None when too few of the candidates pass (a
        selective filter): the caller scans exactly."""
        assert self.index is not None
        if limit <= 0:
            return []
        count = max(limit * 4, 64)
        while True:
            keys, similarities = self.index.search(query, count)
            if allowed is not None:
                kept = np.isin(keys, allowed)
                keys, similarities = keys[kept], similarities[kept]
            # The index's own scores: gathering the candidates' codes here would read a page of them per candidate.
            found = best_of_keys(partitions, keys, query, check, limit, parts, given=similarities)
            if len(found) == limit:
                return found
            if count >= self._tuning.ann_max_candidates:
                return None
            count *= 4


def _chunks(partitions: Partitions) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Every row's key and (dequantized) vector, a chunk at a time."""
    keys: list[np.ndarray] = []
    vectors: list[np.ndarray] = []
    held = 0
    for part in partitions.live():
        for start in range(0, len(part), ROW_CHUNK):
            end = min(len(part), start + ROW_CHUNK)
            keys.append(part.keys[start:end])
            vectors.append(part.vectors(start, end))
            held += end - start
            if held >= ROW_CHUNK:
                yield np.concatenate(keys), np.concatenate(vectors)
                keys, vectors, held = [], [], 0
    if held:
        yield np.concatenate(keys), np.concatenate(vectors)
