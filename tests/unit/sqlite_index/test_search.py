"""One search: the filter asked of rows, semantic candidates rescored exactly, keyword matches as hits."""

from __future__ import annotations

import threading

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index.keyword_table import KeywordTable
from mnemo.adapters.sqlite.memory_index.row_documents import RowDoc
from mnemo.adapters.sqlite.memory_index.search import IndexSearch, once_per_hot_key, row_check
from mnemo.domain.filters import parse
from mnemo.language.en import english
from tests.unit.sqlite_index.making import added, empty_rows, records_of, unit_rows


def doc(user: str, agent: str | None = None, memory_id: str = "m") -> RowDoc:
    hot = (agent, None, None, None, None, "active", None, None)
    return RowDoc(memory_id, user, hot, {"metadata": {"n": 1}})


def test_given_a_filter_of_hot_fields_then_it_is_asked_once_per_distinct_hot_key():
    asked: list[str] = []

    def check(row) -> bool:
        asked.append(row["id"])
        return bool(row["agent_id"] == "bot")

    once = once_per_hot_key(check)

    assert [once(doc("alice", "bot", "m1")), once(doc("alice", "bot", "m2")), once(doc("bob", "bot", "m3"))] == [
        True,
        True,
        True,
    ]
    assert once(doc("alice", None, "m4")) is False
    assert asked == ["m1", "m3", "m4"]


def test_given_a_filter_of_other_fields_then_it_is_asked_of_every_row():
    check = row_check(parse({"metadata.n": {"eq": 1}}))
    hot_only = row_check(parse({"agent_id": "bot"}))

    assert check(doc("alice")) and check(doc("alice", memory_id="m2"))
    assert not hot_only(doc("alice")) and hot_only(doc("alice", "bot"))


@pytest.fixture
def search(db: Database):
    """Three memories of alice and one of bob, in the rows and the keyword table."""
    lock = threading.RLock()
    rows, table = empty_rows(lock=lock), KeywordTable(db, term_cap=100, words=english())
    records = records_of(
        ["I live in Lisbon", "I work as a nurse", "My sister keeps bees", "Bob keeps bees"],
        ["alice", "alice", "alice", "bob"],
    )
    vectors = unit_rows(4, seed=1)
    added(rows, records, vectors, [1, 2, 3, 4])
    with db.write() as conn:
        table.insert(conn, zip([1, 2, 3, 4], records, strict=True))
    return IndexSearch(rows, table, lock), rows, records, vectors


def test_given_a_query_then_the_semantic_hits_carry_the_exact_cosine_best_first(search):
    index, _, records, vectors = search

    hits = index.search(vectors[1], "", parse({"user_id": "alice"}), 2)

    best = sorted(range(3), key=lambda at: -float(vectors[at] @ vectors[1]))[:2]  # alice's rows, by float cosine
    assert [h.memory_id for h in hits] == [records[at].id for at in best]
    assert hits[0].semantic == pytest.approx(1.0, abs=1e-6) and hits[0].keyword == 0.0


def test_given_words_of_a_memory_then_it_is_a_keyword_hit_with_its_similarity_within_the_filter(search):
    index, _, records, vectors = search

    hits = index.search(vectors[0], "bees", parse({"user_id": "alice"}), 1)

    by_id = {h.memory_id: h for h in hits}
    assert set(by_id) == {records[0].id, records[2].id}  # the best semantic hit, and alice's bees (not bob's)
    assert by_id[records[2].id].keyword > 0
    assert by_id[records[2].id].semantic == pytest.approx(float(vectors[2] @ vectors[0]), abs=1e-6)


def test_given_a_memory_removed_then_no_search_finds_it(search):
    index, rows, records, vectors = search

    rows.remove([records[3].id])

    assert records[3].id not in {h.memory_id for h in index.search(vectors[3], "bees", parse(None), 10)}
    assert index.search(vectors[3], "bees", parse(None), 0) == []
