"""The float32 vectors of the rescoring: all kept without a source, a bounded cache in front of one."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pytest

from mnemo.adapters.sqlite.memory_index import exact_vectors
from mnemo.adapters.sqlite.memory_index.exact_vectors import ExactVectors
from tests.unit.sqlite_index.making import unit_rows

VECTORS = unit_rows(6, seed=1)
IDS = [f"m{i}" for i in range(6)]


class Source:
    """The record store's embeddings, counting what is read."""

    def __init__(self) -> None:
        self.read: list[list[str]] = []
        self.on_read: Callable[[], None] = lambda: None

    def __call__(self, memory_ids: Sequence[str]) -> Mapping[str, np.ndarray]:
        self.read.append(list(memory_ids))
        self.on_read()
        return {i: VECTORS[IDS.index(i)] for i in memory_ids if i in IDS}


def test_given_no_source_then_every_vector_written_is_kept_and_scored_exactly():
    vectors = ExactVectors(None, threading.RLock())
    vectors.put(IDS, VECTORS)

    cosines = vectors.cosines([*IDS, "m1", "unknown"], VECTORS[2])

    assert list(cosines) == IDS
    assert cosines["m2"] == pytest.approx(1.0, abs=1e-6)
    assert cosines["m4"] == pytest.approx(float(VECTORS[4] @ VECTORS[2]), abs=1e-6)
    vectors.drop(["m2"])
    assert "m2" not in vectors.cosines(IDS, VECTORS[0])
    vectors.clear()
    assert vectors.cosines(IDS, VECTORS[0]) == {}


def test_given_a_source_then_a_vector_not_cached_is_read_once_and_cached():
    source = Source()
    vectors = ExactVectors(source, threading.RLock())

    first = vectors.cosines(["m3"], VECTORS[3])
    again = vectors.cosines(["m3"], VECTORS[3])

    assert first == again == {"m3": pytest.approx(1.0, abs=1e-6)}
    assert source.read == [["m3"]]


def test_given_a_full_cache_then_written_vectors_are_dropped_and_read_from_the_source(monkeypatch):
    monkeypatch.setattr(exact_vectors, "EXACT_CACHED", 4)
    source = Source()
    vectors = ExactVectors(source, threading.RLock())
    vectors.put(IDS[:3], VECTORS[:3])

    vectors.put(IDS[:2], VECTORS[:2])  # 3 + 2 > 4: these two leave the cache
    vectors.cosines(IDS[:3], VECTORS[0])

    assert source.read == [["m0", "m1"]]
    vectors.cosines(IDS, VECTORS[0])  # 3 cached + 3 read > 4: read, not cached
    vectors.cosines(IDS, VECTORS[0])
    assert source.read[-2:] == [["m3", "m4", "m5"], ["m3", "m4", "m5"]]


def test_given_a_write_while_a_vector_is_read_then_the_read_vector_is_not_cached():
    source = Source()
    vectors = ExactVectors(source, threading.RLock())
    source.on_read = lambda: vectors.put(["m5"], VECTORS[5:6]) if len(source.read) == 1 else None

    vectors.cosines(["m1"], VECTORS[1])
    vectors.cosines(["m1"], VECTORS[1])

    assert source.read == [["m1"], ["m1"]]
