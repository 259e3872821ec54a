"""The exact scan: every row scored, the best that pass the filter in score order, one partition or many."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest

from mnemo.adapters.sqlite.memory_index import exact_scan, int8_vectors
from mnemo.adapters.sqlite.memory_index.exact_scan import exact_top, merged_top, partition_top, scores_of
from mnemo.adapters.sqlite.memory_index.row_documents import RowDoc
from mnemo.domain.memory import MemoryRecord
from tests.unit.sqlite_index.making import filled, records_of, unit_rows


def every(_doc: RowDoc) -> bool:
    return True


def best_ids(
    records: list[MemoryRecord], vectors: np.ndarray, query: np.ndarray, passing: Iterable[int], limit: int
) -> list[str]:
    """The ids of the best `limit` passing rows by their int8 scores (what the scan orders by)."""
    scores = int8_vectors.scores(*int8_vectors.quantize(vectors), query)
    order = sorted(passing, key=lambda at: -float(scores[at]))[:limit]
    return [records[at].id for at in order]


def test_given_one_partition_then_its_best_rows_come_in_score_order_with_their_int8_scores():
    records = records_of([f"note {i}" for i in range(50)])
    vectors = unit_rows(50, seed=1)
    partitions, _ = filled(records, vectors)
    query = vectors[7]

    hits = partition_top(partitions.live()[0], query, every, 5, None)

    assert [i for i, _ in hits] == best_ids(records, vectors, query, range(50), 5)
    assert hits[0][1] == pytest.approx(1.0, abs=0.01)


def test_given_a_filter_rejecting_the_best_window_then_the_whole_partition_is_checked():
    records = records_of([f"note {i}" for i in range(200)])
    vectors = unit_rows(200, seed=2)
    partitions, _ = filled(records, vectors)
    query = vectors[0]
    ranked = sorted(range(200), key=lambda at: -float(vectors[at] @ query))
    worst = {records[at].id for at in ranked[-3:]}  # outside the first window of max(4 × limit, 64) rows

    hits = partition_top(partitions.live()[0], query, lambda doc: doc["id"] in worst, 3, None)

    assert {i for i, _ in hits} == worst


def test_given_no_row_or_no_limit_then_nothing_is_found():
    partitions, _ = filled(records_of(["a"]), unit_rows(1, seed=3))
    part = partitions.live()[0]

    assert partition_top(part, unit_rows(1, seed=4)[0], every, 0, None) == []
    assert merged_top([part], [part.scores(unit_rows(1, seed=4)[0])], unit_rows(1, seed=4)[0], every, 0, None) == []


@pytest.mark.parametrize("kept", ["all", "odd", "one user"])
def test_given_many_partitions_then_the_merged_best_equal_the_best_of_all_rows_that_pass(kept: str):
    users = [f"u{i % 7}" for i in range(140)]
    records = records_of([f"note {i}" for i in range(140)], users)
    vectors = unit_rows(140, seed=5)
    partitions, _ = filled(records, vectors)
    query = unit_rows(1, seed=6)[0]
    passing = [
        at for at in range(140) if kept == "all" or (kept == "odd" and at % 2) or (kept == "one user" and at % 7 == 3)
    ]
    allowed = {records[at].id for at in passing}
    parts = partitions.live()

    hits = merged_top(parts, scores_of(parts, query), query, lambda doc: doc["id"] in allowed, 10, None)

    assert [i for i, _ in hits] == best_ids(records, vectors, query, passing, 10)
    assert exact_top(parts, query, lambda doc: doc["id"] in allowed, 10, None) == hits


def test_given_a_large_scan_then_the_scores_computed_on_every_core_equal_those_of_one(monkeypatch):
    records = records_of([f"note {i}" for i in range(300)], [f"u{i % 5}" for i in range(300)])
    partitions, _ = filled(records, unit_rows(300, seed=7))
    query = unit_rows(1, seed=8)[0]
    parts = partitions.live()
    alone = scores_of(parts, query)
    monkeypatch.setattr(exact_scan, "PARALLEL_ROWS", 10)
    monkeypatch.setattr(exact_scan, "ROW_CHUNK", 7)
    monkeypatch.setattr(exact_scan, "_cores", lambda: 3)

    shared = scores_of(parts, query)

    assert all(np.allclose(a, b) for a, b in zip(alone, shared, strict=True))


def test_given_partitions_cut_into_shares_then_every_row_is_in_one_slice_in_order():
    records = records_of([f"note {i}" for i in range(10)], ["a"] * 3 + ["b"] * 7)
    partitions, _ = filled(records, unit_rows(10, seed=9))

    groups = exact_scan._slices(partitions.live(), 4)

    assert groups == [[(0, 0, 3), (1, 0, 1)], [(1, 1, 5)], [(1, 5, 7)]]
