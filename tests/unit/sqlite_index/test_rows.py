"""The in-memory side of the index changed as one: partitions, facets, float32 vectors, approximate index."""

from __future__ import annotations

import pytest

from mnemo.adapters.sqlite.memory_index.tuning import IndexTuning
from tests.unit.sqlite_index.making import WIDTH, added, empty_rows, records_of, unit_rows


def test_given_rows_then_each_part_holds_them():
    rows = empty_rows()
    records = records_of(["Name is Ann", "a note"])
    vectors = unit_rows(2, seed=1)

    added(rows, records, vectors, [1, 2])

    assert rows.partitions.by_user["alice"].ids == [r.id for r in records]
    assert rows.facets.keys({"name"}).tolist() == [1]
    assert rows.exact.cosines([records[1].id], vectors[1]) == {records[1].id: pytest.approx(1.0, abs=1e-6)}
    assert rows.removed is False


def test_given_a_memory_upserted_again_then_its_old_row_facets_and_vector_are_replaced():
    rows = empty_rows()
    record = records_of(["Name is Ann"])[0]
    vectors = unit_rows(2, seed=2)
    added(rows, [record], vectors[:1], [1])
    changed = record.with_text("a plain note")

    rows.upsert([changed], vectors[1:], [1], [1])

    assert len(rows.partitions.by_user["alice"]) == 1
    assert rows.partitions.doc(record.id).get("facets") == []
    assert rows.facets.count({"name"}) == 0
    assert rows.exact.cosines([record.id], vectors[1])[record.id] == pytest.approx(1.0, abs=1e-6)
    assert rows.removed is True  # a replaced row's keyword row was deleted: a purge is due


def test_given_an_empty_index_when_rows_of_another_width_come_then_it_takes_their_width():
    rows = empty_rows()
    record = records_of(["wider"])[0]
    rows.partitions.keys[record.id] = 1

    rows.upsert([record], unit_rows(1, seed=3, width=WIDTH * 2), [1], [])

    assert rows.partitions.dimension == WIDTH * 2
    assert rows.partitions.by_user["alice"].codes.shape[1] == WIDTH * 2


def test_given_memories_removed_then_their_keys_rows_and_vectors_are_gone():
    rows = empty_rows()
    records = records_of(["Name is Ann", "a note"])
    added(rows, records, unit_rows(2, seed=4), [1, 2])

    rows.remove([records[0].id, "unknown"])

    assert rows.partitions.keys == {records[1].id: 2}
    assert rows.facets.count({"name"}) == 0
    assert rows.exact.cosines([records[0].id], unit_rows(1, seed=5)[0]) == {}
    assert rows.removed is True


def test_given_nothing_removed_then_no_purge_is_due():
    rows = empty_rows()

    rows.remove(["unknown"])

    assert rows.removed is False


def test_given_enough_rows_then_the_approximate_index_follows_and_a_reset_drops_everything():
    rows = empty_rows(IndexTuning(ann_min_rows=100))
    records = records_of([f"note {i}" for i in range(120)])
    rows.partitions.keys.update((r.id, i + 1) for i, r in enumerate(records))

    rows.upsert(records, unit_rows(120, seed=6), list(range(1, 121)), [])
    index = rows.approximate.index
    assert index is not None and len(index) == 120
    rows.remove([records[0].id])
    assert len(index) == 119

    rows.reset()

    assert rows.approximate.index is None
    assert rows.partitions.keys == {} and rows.partitions.by_user == {}
    assert rows.exact.cosines([records[1].id], unit_rows(1, seed=7)[0]) == {}
