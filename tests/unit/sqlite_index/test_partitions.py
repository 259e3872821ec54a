"""The partitions: rows appended per user, taken out by moving the last row into the gap, found by key."""

from __future__ import annotations

import numpy as np
import pytest

from mnemo.adapters.sqlite.memory_index import int8_vectors
from mnemo.adapters.sqlite.memory_index.partitions import FIRST_SLOTS, Partition, Partitions
from mnemo.adapters.sqlite.memory_index.row_documents import FACETS_AT
from mnemo.adapters.sqlite.memory_index.snapshot_files import Mark, Snapshot
from mnemo.language.en import english
from tests.unit.sqlite_index.making import WIDTH, filled, records_of, unit_rows


def test_given_a_partition_when_it_outgrows_its_arrays_then_every_row_is_kept():
    part = Partition(0, "alice", WIDTH)
    codes, scales = int8_vectors.quantize(unit_rows(20, seed=1))

    for row in range(20):
        assert part.append(f"m{row}", row + 1, (), None, codes[row], float(scales[row])) == row

    assert len(part) == 20
    assert part.keys[:20].tolist() == list(range(1, 21))
    assert np.array_equal(part.codes[:20], codes)


def test_given_a_row_in_the_middle_when_removed_then_the_last_row_takes_its_place():
    part = Partition(0, "alice", WIDTH)
    codes, scales = int8_vectors.quantize(unit_rows(3, seed=2))
    for row in range(3):
        part.append(f"m{row}", 10 + row, ("hot", row), {"id": f"m{row}"}, codes[row], float(scales[row]))

    moved = part.remove(0)

    assert moved == 12  # the key of the row that moved
    assert part.ids == ["m2", "m1"]
    assert part.hot == [("hot", 2), ("hot", 1)]
    assert part.cold == [{"id": "m2"}, {"id": "m1"}]
    assert np.array_equal(part.codes[0], codes[2])
    assert part.remove(1) is None  # the last row: nothing moves
    assert part.ids == ["m2"]


def test_given_records_of_two_users_when_added_then_each_user_has_a_partition_and_each_key_finds_its_row():
    records = records_of(["a one", "b one", "a two"], ["alice", "bob", "alice"])
    vectors = unit_rows(3, seed=3)

    partitions, keys = filled(records, vectors)

    assert set(partitions.by_user) == {"alice", "bob"}
    assert partitions.by_user["alice"].ids == [records[0].id, records[2].id]
    assert [p.user for p in partitions.live()] == ["alice", "bob"]
    for record, key in zip(records, keys, strict=True):
        part = partitions.numbered[int(partitions.slot_part[key])]
        assert part is not None
        assert part.ids[int(partitions.slot_row[key])] == record.id
    assert partitions.doc(records[1].id)["user_id"] == "bob"
    assert partitions.similarity(records[2].id, vectors[2]) == pytest.approx(1.0, abs=0.01)


def test_given_users_when_scoped_then_only_their_partitions_that_exist_are_given():
    partitions, _ = filled(records_of(["a", "b"], ["alice", "bob"]), unit_rows(2, seed=4))

    assert partitions.scoped(None) is None
    assert [p.user for p in partitions.scoped({"bob", "carol"}) or []] == ["bob"]


def test_given_rows_when_detached_then_their_hot_fields_are_returned_and_an_emptied_partition_is_gone():
    records = records_of(["Name is Ann", "a note", "b note"], ["alice", "alice", "bob"])
    partitions, keys = filled(records, unit_rows(3, seed=5))

    detached = partitions.detach([keys[0], keys[2], keys[2]])  # a key detached twice counts once

    assert [key for key, _ in detached] == [keys[0], keys[2]]
    assert detached[0][1][FACETS_AT] == ("name",)
    assert partitions.slot_part[keys[0]] == -1
    assert "bob" not in partitions.by_user
    assert partitions.numbered[1] is None
    assert partitions.by_user["alice"].ids == [records[1].id]
    assert partitions.slot_row[keys[1]] == 0  # moved into the gap


def test_given_a_key_past_the_slots_when_added_then_the_slots_grow_and_keep_the_earlier_keys():
    records = records_of(["a", "b"])
    partitions, _ = filled(records[:1], unit_rows(1, seed=6))
    far = FIRST_SLOTS * 3
    codes, scales = int8_vectors.quantize(unit_rows(1, seed=7))

    partitions.keys[records[1].id] = far
    partitions.add(records[1:], codes, scales, [far])

    assert len(partitions.slot_part) > far
    assert partitions.slot_part[1] == 0
    assert partitions.slot_row[far] == 1


def test_given_a_reset_then_no_row_or_key_is_left():
    partitions, keys = filled(records_of(["a", "b"]), unit_rows(2, seed=8))

    partitions.reset()

    assert partitions.by_user == {} and partitions.numbered == [] and partitions.keys == {}
    assert (partitions.slot_part[keys] == -1).all()


def test_given_a_snapshot_when_restored_then_its_rows_are_the_partitions():
    vectors = unit_rows(3, seed=9)
    codes, scales = int8_vectors.quantize(vectors)
    hot_a, hot_b = (None,) * 8, ("agent",) + (None,) * 7
    snapshot = Snapshot(
        mark=Mark(1, 3, WIDTH),
        next_key=8,
        users=["alice", None],
        counts=[2, 1],
        ids=["m1", "m2", "m3"],
        keys=np.array([5, 7, 6], dtype=np.int64),
        codes=codes,
        scales=scales,
        hot_table=[hot_a, hot_b],
        hot_rows=np.array([0, 1, 0], dtype=np.int32),
        approximate=None,
    )
    partitions = Partitions(4, None, english())

    hots = partitions.restore(snapshot)

    assert hots == [hot_a, hot_b, hot_a]
    assert partitions.dimension == WIDTH
    assert partitions.keys == {"m1": 5, "m2": 7, "m3": 6}
    assert partitions.by_user["alice"].ids == ["m1", "m2"] and partitions.by_user[None].ids == ["m3"]
    assert partitions.doc("m2")["agent_id"] == "agent"
    assert (partitions.slot_part[[5, 7, 6]] == [0, 0, 1]).all() and (partitions.slot_row[[5, 7, 6]] == [0, 1, 0]).all()
    assert partitions.similarity("m3", vectors[2]) == pytest.approx(1.0, abs=0.01)
