"""The approximate nearest-neighbour index of a large local store: faiss's inverted file of int8 codes (IVF-SQ8).

An exact scan's cost grows with every row (bench/memory_index.md); this index scans only the `nprobe` lists (of
`lists`) whose centroids are nearest the query. It is trained once, on a sample of the rows it is built from
(k-means), and takes later rows into the lists of their nearest centroid; it is rebuilt (trained again) by its owner
(.approximate) when the rows have grown well past what it was trained on. Keys are int64; the owner maps them to its
rows, checks its filters on them and scores them exactly. faiss is imported only when a store is large enough to
need this index.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

TRAINING_POINTS_PER_LIST = 40  # k-means wants at least 39 points per centroid
TRAINING_ITERATIONS = 10
TRAINING_THREADS = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
MAX_LISTS = 1024
MIN_LISTS = 16


def lists_for(rows: int) -> int:
    """How many inverted lists to cut `rows` rows into: about 4·√rows, within [MIN_LISTS, MAX_LISTS]."""
    return int(min(MAX_LISTS, max(MIN_LISTS, 4 * int(rows**0.5))))


class ApproximateIndex:
    def __init__(self, dimension: int, lists: int, nprobe: int) -> None:
        import faiss  # a large store only: a small one never needs it

        # One thread per call: a search or an add of one batch is too small to share, and OpenMP's waiting threads
        # spin on cores the server's other requests need (bench/memory_index.md).
        faiss.omp_set_num_threads(1)
        self._faiss: Any = faiss
        self.dimension = dimension
        self.lists = lists
        self.nprobe = min(nprobe, lists)
        quantizer = faiss.IndexFlatIP(dimension)
        self._index: Any = faiss.IndexIVFScalarQuantizer(
            quantizer, dimension, lists, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
        )
        self._index.cp.niter = TRAINING_ITERATIONS
        self._quantizer: Any = quantizer  # the index points at it and does not own it: kept alive here
        self.trained_on = 0

    @classmethod
    def trained(cls, sample: np.ndarray, rows: int, nprobe: int) -> ApproximateIndex:
        """An empty index for about `rows` rows, its lists' centroids trained on a sample of them (k-means)."""
        vectors = np.ascontiguousarray(sample, dtype=np.float32)
        index = cls(vectors.shape[1], min(lists_for(rows), max(1, len(vectors) // TRAINING_POINTS_PER_LIST)), nprobe)
        index._faiss.omp_set_num_threads(TRAINING_THREADS)  # k-means: every core, once
        try:
            index._index.train(vectors)
        finally:
            index._faiss.omp_set_num_threads(1)
        index.trained_on = rows
        return index

    @staticmethod
    def sample_size(rows: int) -> int:
        """How many rows to train an index of `rows` rows on."""
        return min(rows, lists_for(rows) * TRAINING_POINTS_PER_LIST)

    def save(self, path: Path) -> None:
        self._faiss.write_index(self._index, str(path))

    @classmethod
    def read(cls, path: Path, nprobe: int, trained_on: int) -> ApproximateIndex:
        """An index saved by `save`."""
        import faiss

        faiss.omp_set_num_threads(1)
        index = cls.__new__(cls)
        index._faiss = faiss
        index._index = faiss.read_index(str(path))
        index._quantizer = None  # read_index makes the index own its quantizer
        index.dimension = int(index._index.d)
        index.lists = int(index._index.nlist)
        index.nprobe = min(nprobe, index.lists)
        index.trained_on = trained_on
        return index

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def add(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        if len(keys):
            self._index.add_with_ids(
                np.ascontiguousarray(vectors, dtype=np.float32), np.ascontiguousarray(keys, dtype=np.int64)
            )

    def remove(self, keys: np.ndarray) -> None:
        if len(keys):
            self._index.remove_ids(self._faiss.IDSelectorBatch(np.ascontiguousarray(keys, dtype=np.int64)))

    def search(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The keys of (about) the `count` rows nearest the query, nearest first, and their similarities as the index
        computes them (on its own int8 codes)."""
        params = self._faiss.SearchParametersIVF(nprobe=self.nprobe)
        found, keys = self._index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), count, params=params)
        kept = keys[0] >= 0
        return keys[0][kept], found[0][kept]
