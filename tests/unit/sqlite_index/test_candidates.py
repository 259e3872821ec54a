"""The best of candidate rows given by key: kept to the partitions searched, scored on their codes or given scores."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.sqlite.memory_index import candidates, int8_vectors
from mnemo.adapters.sqlite.memory_index.candidates import best_of_keys
from mnemo.domain.memory import MemoryRecord
from tests.unit.sqlite_index.making import filled, records_of, unit_rows


def every(_doc: object) -> bool:
    return True


@pytest.fixture
def spread():
    """60 rows of 6 users under keys 1..60, and the int8 scores of a query against them (row order)."""
    records = records_of([f"note {i}" for i in range(60)], [f"u{i % 6}" for i in range(60)])
    vectors = unit_rows(60, seed=1)
    partitions, keys = filled(records, vectors)
    query = unit_rows(1, seed=2)[0]
    scores = int8_vectors.scores(*int8_vectors.quantize(vectors), query)
    return records, partitions, np.array(keys, dtype=np.int64), query, scores


def expected(records: list[MemoryRecord], scores: np.ndarray, rows: Iterable[int], limit: int) -> list[tuple[str, Any]]:
    """The ids and int8 scores of the best `limit` of these rows."""
    best = sorted(rows, key=lambda at: -scores[at])[:limit]
    return [(records[at].id, pytest.approx(float(scores[at]), abs=1e-6)) for at in best]


def test_given_keys_of_every_partition_then_the_best_come_in_score_order(spread):
    records, partitions, keys, query, scores = spread

    hits = best_of_keys(partitions, keys, query, every, 5, None)

    assert hits == expected(records, scores, range(60), 5)


@pytest.mark.parametrize("users", [{"u2"}, {"u1", "u4"}])
def test_given_a_scope_then_only_the_rows_of_its_partitions_are_candidates(spread, users: set[str]):
    records, partitions, keys, query, scores = spread

    hits = best_of_keys(partitions, keys, query, every, 4, partitions.scoped(users))

    assert hits == expected(records, scores, [at for at in range(60) if f"u{at % 6}" in users], 4)


def test_given_keys_whose_rows_are_gone_then_they_are_skipped(spread):
    records, partitions, keys, query, _ = spread
    partitions.detach(keys[:30].tolist())

    hits = best_of_keys(partitions, keys, query, every, 60, None)

    assert {i for i, _ in hits} == {r.id for r in records[30:]}
    assert best_of_keys(partitions, keys[:30], query, every, 5, None) == []


def test_given_scores_then_the_rows_are_ranked_by_them_and_the_filter_is_asked_in_that_order(spread):
    records, partitions, keys, query, _ = spread
    given = np.linspace(0.0, 1.0, 60, dtype=np.float32)  # the last key best
    asked: list[str] = []
    odd = {r.id for r in records[1::2]}

    def odd_only(doc) -> bool:
        asked.append(doc["id"])
        return doc["id"] in odd

    hits = best_of_keys(partitions, keys, query, odd_only, 2, None, given=given)

    assert [i for i, _ in hits] == [records[59].id, records[57].id]
    assert [s for _, s in hits] == pytest.approx([1.0, float(given[57])])
    assert asked == [records[59].id, records[58].id, records[57].id]


def test_given_rows_of_more_partitions_than_gathered_apart_then_the_scores_are_the_same(spread, monkeypatch):
    records, partitions, keys, query, scores = spread
    monkeypatch.setattr(candidates, "GATHERS_PER_PARTITION", 2)

    hits = best_of_keys(partitions, keys, query, every, 5, None)

    assert hits == expected(records, scores, range(60), 5)


def test_given_no_limit_then_nothing_is_found(spread):
    _, partitions, keys, query, _ = spread

    assert best_of_keys(partitions, keys, query, every, 0, None) == []
