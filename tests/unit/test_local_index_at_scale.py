"""What lets the local index hold a million memories: int8 vectors with an exact rescoring, the approximate index
(recall against exact search, filters that fall back to the exact scan), the facet rows, the common-word cap of the
keyword search, and the snapshot a restart starts from (used only when it matches the file; gone after a crash)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import IndexTuning, LocalMemoryIndex, int8_vectors
from mnemo.adapters.sqlite.memory_index import snapshot_files as index_snapshot
from mnemo.adapters.sqlite.storage import open_storage, snapshot_path
from mnemo.domain.filters import And, Condition, parse
from mnemo.domain.memory import FACETS_FIELD, Event, HistoryEntry, MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.memory_namespaces import NamespaceStorage
from tests.support.int8_error import error_bound

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
WIDTH = 32


def unit_rows(count: int, seed: int, clusters: int = 40) -> np.ndarray:
    """Rows around `clusters` centres, as embeddings of related texts are."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, WIDTH)).astype(np.float32)
    rows = centres[rng.integers(0, clusters, count)] + 0.6 * rng.standard_normal((count, WIDTH)).astype(np.float32)
    normalised: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return normalised


def records_of(count: int, user: str = "everyone", **fields: object) -> list[MemoryRecord]:
    return [MemoryRecord.create(f"note number {i}", Scope(user_id=user), at=T0, **fields) for i in range(count)]


def exact_top(rows: np.ndarray, query: np.ndarray, allowed: list[int], limit: int = 10) -> list[int]:
    return sorted(allowed, key=lambda i: -float(rows[i] @ query))[:limit]


def test_given_unit_vectors_when_quantized_then_every_score_is_within_the_bound_and_close_on_average():
    rows = unit_rows(2_000, seed=1)
    query = unit_rows(1, seed=2)[0]
    codes, scales = int8_vectors.quantize(rows)

    approximate = int8_vectors.scores(codes, scales, query)
    exact = rows @ query

    assert codes.dtype == np.int8
    assert np.all(np.abs(approximate - exact) <= error_bound(scales, query) + 1e-6)
    assert float(np.abs(approximate - exact).mean()) < 2e-3
    assert np.allclose(int8_vectors.dequantize(codes, scales), rows, atol=float(scales.max()) / 2 + 1e-6)


@pytest.fixture
def large(tmp_path: Path) -> tuple[LocalMemoryIndex, list[MemoryRecord], np.ndarray]:
    """3,000 memories of one user and their vectors, in an index that searches approximately from 500 rows on."""
    index = LocalMemoryIndex(
        Database(tmp_path / "large.sqlite3"),
        WIDTH,
        tuning=IndexTuning(ann_min_rows=500, ann_nprobe=16),
        facets=english(),
    )
    records = [
        MemoryRecord.create(f"note number {i}", Scope(user_id="everyone"), at=T0, metadata={"n": i})
        for i in range(3_000)
    ]
    rows = unit_rows(len(records), seed=3)
    index.upsert(records, rows)
    return index, records, rows


def test_given_a_large_index_when_searched_then_the_approximate_top_10_recalls_at_least_98_percent(large):
    index, records, rows = large
    queries = unit_rows(50, seed=4)
    found = 0
    for query in queries:
        hits = index.search(query, "", parse({"user_id": "everyone"}), 10)
        found += len({h.memory_id for h in hits} & {records[i].id for i in exact_top(rows, query, list(range(3_000)))})

    assert index._ann is not None  # the approximate path was taken
    assert found / (10 * len(queries)) >= 0.98


def test_given_a_large_index_when_hits_come_back_then_their_semantic_score_is_the_exact_cosine(large):
    index, records, rows = large
    query = unit_rows(1, seed=5)[0]
    position = {r.id: i for i, r in enumerate(records)}

    hits = index.search(query, "", parse(None), 10)

    assert [h.semantic for h in hits] == pytest.approx([float(rows[position[h.memory_id]] @ query) for h in hits])


def test_given_a_selective_filter_on_the_approximate_path_then_the_exact_scan_answers_exactly(large):
    index, records, rows = large
    query = unit_rows(1, seed=6)[0]
    kept = [7, 1_234, 2_999, 42, 600]  # five rows anywhere, whatever their distance to the query

    hits = index.search(query, "", parse({"metadata": {"n": {"in": kept}}}), 10)

    assert [h.memory_id for h in hits] == [records[i].id for i in exact_top(rows, query, kept)]


def test_given_a_facet_filter_then_only_the_rows_filed_under_it_are_scored_and_all_of_them_found(tmp_path: Path):
    index = LocalMemoryIndex(
        Database(tmp_path / "facets.sqlite3"), WIDTH, tuning=IndexTuning(ann_min_rows=100), facets=english()
    )
    plain = records_of(400)
    named = [MemoryRecord.create(f"Name is Person{i}", Scope(user_id="everyone"), at=T0) for i in range(3)]
    rows = unit_rows(len(plain) + len(named), seed=7)
    index.upsert([*plain, *named], rows)
    about_names = And((Condition("user_id", "eq", "everyone"), Condition(FACETS_FIELD, "in", ["name"])))

    hits = index.search(rows[0], "Person1", about_names, 10)

    assert {h.memory_id for h in hits} == {r.id for r in named}
    assert [h.memory_id for h in hits if h.keyword > 0] == [named[1].id]
    index.remove([named[1].id])
    assert {h.memory_id for h in index.search(rows[0], "", about_names, 10)} == {named[0].id, named[2].id}


def test_given_a_facet_filed_on_many_rows_when_one_user_is_searched_then_all_and_only_their_filed_rows_are_found(
    tmp_path: Path,
):
    # 30 users of 20 rows, 5 of each filed under "name": the facet's 150 rows are more than a quarter of one user's,
    # so the search reads the user's rows' facets instead of scoring the facet's rows of every user.
    index = LocalMemoryIndex(Database(tmp_path / "user-facets.sqlite3"), WIDTH, facets=english())
    records = [
        MemoryRecord.create(f"Name is Person{u}x{i}" if i < 5 else f"note {u} {i}", Scope(user_id=f"u{u}"), at=T0)
        for u in range(30)
        for i in range(20)
    ]
    rows = unit_rows(len(records), seed=11)
    index.upsert(records, rows)
    named_of_u7 = [at for at, r in enumerate(records) if r.scope.user_id == "u7" and r.text.startswith("Name")]
    about_names = And((Condition("user_id", "eq", "u7"), Condition(FACETS_FIELD, "in", ["name"])))
    query = unit_rows(1, seed=12)[0]

    hits = index.search(query, "Person7x3", about_names, 10)

    assert [h.memory_id for h in hits if h.keyword == 0] == [
        records[at].id for at in exact_top(rows, query, named_of_u7) if records[at].text != "Name is Person7x3"
    ]
    assert [h.memory_id for h in hits if h.keyword > 0] == [records[named_of_u7[3]].id]
    index.remove([records[named_of_u7[0]].id])
    assert {h.memory_id for h in index.search(query, "", about_names, 10)} == {records[at].id for at in named_of_u7[1:]}


def test_given_a_filter_of_hot_fields_when_searched_then_each_row_passes_or_fails_by_its_own_fields(tmp_path: Path):
    # Rows of one user under two agents, one of them expired: the filter's answer is kept per distinct set of hot
    # fields within a search, never carried from one row to a row whose fields differ.
    index = LocalMemoryIndex(Database(tmp_path / "hot.sqlite3"), WIDTH, facets=english())
    expired = datetime(2020, 1, 1, tzinfo=UTC).date()
    records = [
        MemoryRecord.create(
            f"note {i}",
            Scope(user_id="ann", agent_id="a" if i % 2 else "b"),
            at=T0,
            expiration_date=expired if i % 3 == 0 else None,
        )
        for i in range(60)
    ]
    rows = unit_rows(len(records), seed=13)
    index.upsert(records, rows)
    query = unit_rows(1, seed=14)[0]
    live_of_a = [at for at, r in enumerate(records) if r.scope.agent_id == "a" and r.expiration_date is None]
    visible_to_a = parse({"AND": [{"user_id": "ann"}, {"agent_id": "a"}, {"NOT": {"expiration_date": "*"}}]})

    hits = index.search(query, "", visible_to_a, 40)

    assert [h.memory_id for h in hits] == [records[at].id for at in exact_top(rows, query, live_of_a, 40)]


def test_given_a_word_in_more_memories_than_the_cap_then_the_keyword_search_leaves_it_out(tmp_path: Path):
    def keyword_hits(cap: int) -> set[str]:
        index = LocalMemoryIndex(
            Database(tmp_path / f"words-{cap}.sqlite3"),
            WIDTH,
            tuning=IndexTuning(keyword_term_cap=cap),
            facets=english(),
        )
        records = [*records_of(40), MemoryRecord.create("a rare zeppelin", Scope(user_id="everyone"), at=T0)]
        index.upsert(records, unit_rows(len(records), seed=8))
        hits = index.search(unit_rows(1, seed=9)[0], "note zeppelin", parse(None), 5)
        return {h.memory_id for h in hits if h.keyword > 0} - {records[-1].id}

    assert keyword_hits(cap=1_000)  # "note" is in 40 memories: kept under a cap of 1,000
    assert not keyword_hits(cap=10)  # left out over a cap of 10: only the rare word matches


# ---- the snapshot ----------------------------------------------------------------------------------------------


def open_file(path: Path) -> tuple[Database, NamespaceStorage]:
    database = Database(path)
    return database, open_storage(
        database, tuning=IndexTuning(ann_min_rows=20), facets=english()
    )  # the approximate index too


def add(storage: NamespaceStorage, records: list[MemoryRecord], rows: np.ndarray) -> None:
    storage.store.insert(records, rows, [HistoryEntry.of(Event.ADD, r, None, r.text) for r in records])
    storage.index.upsert(records, rows)


def ids_found(storage: NamespaceStorage, query: np.ndarray) -> list[str]:
    return [h.memory_id for h in storage.index.search(query, "", parse(None), 1_000)]


def close(database: Database, storage: NamespaceStorage) -> None:
    assert storage.close is not None
    storage.close()
    database.close()


def test_given_a_closed_storage_when_opened_again_then_it_starts_from_its_snapshot_and_answers_the_same(
    tmp_path: Path,
):
    path = tmp_path / "mnemo.sqlite3"
    database, storage = open_file(path)
    records, rows = records_of(30), unit_rows(30, seed=10)
    add(storage, records, rows)
    before = ids_found(storage, rows[3])
    close(database, storage)
    assert (snapshot_path(Database(path)) / "manifest.json").exists()

    database, storage = open_file(path)

    assert not snapshot_path(database).exists()  # read once: gone until the next close
    assert isinstance(storage.index, LocalMemoryIndex)
    assert storage.index._ann is not None  # read back with the rest
    assert ids_found(storage, rows[3]) == before
    assert storage.index.count() == 30
    close(database, storage)


def test_given_a_crash_after_writes_when_opened_again_then_the_index_is_rebuilt_from_the_records(tmp_path: Path):
    path = tmp_path / "mnemo.sqlite3"
    database, storage = open_file(path)
    first, rows = records_of(20), unit_rows(40, seed=11)
    add(storage, first, rows[:20])
    close(database, storage)
    database, storage = open_file(path)
    later = records_of(20, user="later")
    add(storage, later, rows[20:])
    storage.store.remove([first[0].id], [HistoryEntry.of(Event.DELETE, first[0], first[0].text, None)])
    storage.index.remove([first[0].id])
    database.close()  # a crash: no snapshot written

    database, storage = open_file(path)

    found = set(ids_found(storage, rows[0]))
    assert found == {r.id for r in [*first[1:], *later]}
    close(database, storage)


def test_given_a_snapshot_older_than_the_file_when_opened_then_it_is_not_used(tmp_path: Path):
    path = tmp_path / "mnemo.sqlite3"
    database, storage = open_file(path)
    records, rows = records_of(10), unit_rows(10, seed=12)
    add(storage, records, rows)
    close(database, storage)
    # Another writer (a tool, an older mnemo) deletes a memory from the file without this index.
    database = Database(path)
    with database.write() as conn:
        conn.execute("DELETE FROM memories WHERE id = ?", (records[4].id,))
    stale_mark = index_snapshot.mark_of(database, WIDTH)
    database.close()

    database, storage = open_file(path)

    assert index_snapshot.read(snapshot_path(database), stale_mark) is None
    assert records[4].id not in ids_found(storage, rows[4])
    assert storage.index.count() == 9
    close(database, storage)


def test_given_a_record_changed_without_the_index_when_closed_then_the_next_start_rebuilds(tmp_path: Path):
    path = tmp_path / "mnemo.sqlite3"
    database, storage = open_file(path)
    records, rows = records_of(5), unit_rows(5, seed=13)
    add(storage, records, rows)
    database_writer = Database(path)  # a tool writing the file beside the running index
    with database_writer.write() as conn:
        conn.execute("UPDATE memories SET state = 'superseded' WHERE id = ?", (records[2].id,))
    database_writer.close()
    close(database, storage)  # the snapshot carries the generation the index saw: behind the file's

    database, storage = open_file(path)

    active = [h.memory_id for h in storage.index.search(rows[2], "", Condition("state", "eq", "active"), 10)]
    assert records[2].id not in active
    close(database, storage)
