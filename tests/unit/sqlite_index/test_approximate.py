"""The approximate path: the faiss index built, kept and dropped with the rows, and its candidates checked."""

from __future__ import annotations

import numpy as np
import pytest

from mnemo.adapters.sqlite.memory_index import int8_vectors
from mnemo.adapters.sqlite.memory_index.approximate import ApproximateSearch
from mnemo.adapters.sqlite.memory_index.partitions import Partitions
from mnemo.adapters.sqlite.memory_index.tuning import IndexTuning
from tests.unit.sqlite_index.making import filled, records_of, unit_rows

TUNING = IndexTuning(ann_min_rows=200, ann_nprobe=64, ann_max_candidates=256)


def every(_doc: object) -> bool:
    return True


def grown(partitions: Partitions, count: int, seed: int) -> list[int]:
    """`count` more rows of user "alice" added under the next keys."""
    records = records_of([f"more {i}" for i in range(count)])
    first = max(partitions.keys.values(), default=0) + 1
    keys = list(range(first, first + count))
    partitions.keys.update((r.id, k) for r, k in zip(records, keys, strict=True))
    partitions.add(records, *int8_vectors.quantize(unit_rows(count, seed=seed)), keys)
    return keys


@pytest.fixture
def large():
    records = records_of([f"note {i}" for i in range(300)], [f"u{i % 3}" for i in range(300)])
    vectors = unit_rows(300, seed=1)
    partitions, keys = filled(records, vectors)
    approximate = ApproximateSearch(TUNING)
    approximate.refresh(partitions)
    return records, vectors, partitions, keys, approximate


def test_given_fewer_rows_than_the_minimum_then_no_index_is_built():
    partitions, _ = filled(records_of([f"n{i}" for i in range(50)]), unit_rows(50, seed=2))
    approximate = ApproximateSearch(TUNING)

    approximate.refresh(partitions)

    assert approximate.index is None
    assert not approximate.usable(50, 50)


def test_given_the_minimum_rows_then_the_index_holds_them_all_and_is_used_for_broad_searches(large):
    _, _, _, _, approximate = large

    assert approximate.index is not None and len(approximate.index) == 300
    assert approximate.index.trained_on == 300
    assert approximate.usable(300, 300)
    assert approximate.usable(200, 800)
    assert not approximate.usable(199, 300)  # fewer rows than the minimum: scanned exactly
    assert not approximate.usable(200, 801)  # under a quarter of the index: scanned exactly


def test_given_rows_grown_eightfold_then_the_index_is_trained_again_and_dropped_below_half(large):
    _, _, partitions, _, approximate = large
    first = approximate.index
    grown(partitions, 1_000, seed=3)
    approximate.refresh(partitions)
    assert approximate.index is first  # 1300 < 8 × 300: kept

    grown(partitions, 1_100, seed=4)
    approximate.refresh(partitions)
    assert approximate.index is not first and approximate.index is not None
    assert approximate.index.trained_on == 2_400 and len(approximate.index) == 2_400

    gone = list(partitions.keys)[: 2_400 - 99]
    for memory_id in gone:
        partitions.detach([partitions.keys.pop(memory_id)])
    approximate.refresh(partitions)
    assert approximate.index is None


def test_given_a_query_then_the_best_candidates_that_pass_come_first(large):
    records, vectors, partitions, _, approximate = large
    query = vectors[10]
    odd = {r.id for r in records[1::2]}

    best = approximate.top(partitions, query, every, 5, None)
    passing = approximate.top(partitions, query, lambda doc: doc["id"] in odd, 5, None)

    assert best is not None and best[0][0] == records[10].id
    assert [s for _, s in best] == sorted((s for _, s in best), reverse=True)
    assert passing is not None and len(passing) == 5 and {i for i, _ in passing} <= odd


def test_given_a_scope_and_allowed_keys_then_only_their_rows_are_candidates(large):
    records, vectors, partitions, keys, approximate = large
    allowed = np.array(keys[:90], dtype=np.int64)

    hits = approximate.top(partitions, vectors[0], every, 10, partitions.scoped({"u1"}), allowed)

    assert hits is not None and len(hits) == 10
    assert {i for i, _ in hits} <= {records[at].id for at in range(90) if at % 3 == 1}


def test_given_a_filter_too_few_candidates_pass_then_the_caller_is_told_to_scan(large):
    records, vectors, partitions, _, approximate = large

    assert approximate.top(partitions, vectors[0], lambda doc: doc["id"] == records[299].id, 5, None) is None
    assert approximate.top(partitions, vectors[0], every, 0, None) == []


def test_given_rows_replaced_or_removed_then_the_index_follows(large):
    _, vectors, _, keys, approximate = large
    assert approximate.index is not None

    approximate.replace(keys[:2], [9_001], vectors[:1])
    approximate.remove(keys[2:4])

    assert len(approximate.index) == 300 - 2 + 1 - 2
    found, _ = approximate.index.search(vectors[0], 1)
    assert found.tolist() == [9_001]
    approximate.drop()
    assert approximate.index is None
    approximate.replace([], [1], vectors[:1])  # no index: nothing to do
    approximate.remove([1])
