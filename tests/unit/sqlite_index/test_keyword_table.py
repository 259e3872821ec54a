"""The keyword table: rows by key, the listing a load repairs from, ranked matches, the common-word cap."""

from __future__ import annotations

import numpy as np

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index.keyword_query import SCHEMA, table_args
from mnemo.adapters.sqlite.memory_index.keyword_table import KeywordTable, secure_delete_supported
from mnemo.language.en import english
from tests.unit.sqlite_index.making import records_of


def rows(db: Database) -> list[tuple[int, str]]:
    return db.read().execute("SELECT rowid, text FROM memory_fts ORDER BY rowid").fetchall()


def test_given_memories_when_inserted_and_deleted_by_key_then_the_table_holds_the_rest(db: Database):
    table = KeywordTable(db, term_cap=100, words=english())
    records = records_of(["I live in Lisbon", "I work as a nurse", "Bob keeps bees"])

    with db.write() as conn:
        table.insert(conn, zip([5, 6, 9], records, strict=True))
    with db.write() as conn:
        table.delete(conn, [6])

    assert rows(db) == [(5, "I live in Lisbon"), (9, "Bob keeps bees")]
    assert db.read().execute("SELECT dated FROM memory_fts WHERE rowid = 5").fetchone()[0] == "1 March 2024"
    with db.write() as conn:
        table.clear(conn)
    assert rows(db) == []


def test_given_a_memory_with_two_rows_then_the_listing_keeps_the_first_and_names_the_other(db: Database):
    table = KeywordTable(db, term_cap=100, words=english())
    first, second = records_of(["one", "two"])
    with db.write() as conn:
        table.insert(conn, [(3, first), (4, second), (8, first)])

    listed, repeated, last = table.listed()

    assert listed == {first.id: 3, second.id: 4}
    assert repeated == [8]
    assert last == 8


def test_given_an_empty_table_then_nothing_is_listed(db: Database):
    assert KeywordTable(db, term_cap=100, words=english()).listed() == ({}, [], 0)


def test_given_a_query_then_its_matches_come_best_first_in_growing_fetches(db: Database):
    table = KeywordTable(db, term_cap=100, words=english())
    records = records_of([f"bees note {i}" for i in range(30)] + ["bees bees bees"])
    with db.write() as conn:
        table.insert(conn, zip(range(1, 32), records, strict=True))
    query = table.query("bees", None, False, None, size=31)
    assert query is not None

    batches = list(table.ranked(query, 2))

    assert [len(batch) for batch in batches] == [8, 31]  # 2 × 4, then eight times as many: fewer than asked, done
    assert batches[0][0][0] == records[-1].id
    assert all(score > 0 for _, score in batches[1])


def test_given_keys_then_the_query_finds_only_their_rows(db: Database):
    table = KeywordTable(db, term_cap=100, words=english())
    records = records_of(["bees one", "bees two", "bees three"])
    with db.write() as conn:
        table.insert(conn, zip([1, 2, 3], records, strict=True))

    query = table.query("bees", None, False, np.array([2], dtype=np.int64), size=3)
    assert query is not None

    assert [i for i, _ in next(table.ranked(query, 5))] == [records[1].id]
    assert table.query("the of", None, False, None, size=3) is None  # no word that can match


def test_given_a_word_in_more_memories_than_the_cap_then_it_is_left_out_once_the_index_is_larger(db: Database):
    table = KeywordTable(db, term_cap=3, words=english())
    records = records_of([f"common word {i}" for i in range(5)] + ["rare common"])
    with db.write() as conn:
        table.insert(conn, zip(range(1, 7), records, strict=True))

    small = table.query("rare common", None, False, None, size=3)  # an index no larger than the cap: every word
    large = table.query("rare common", None, False, None, size=6)

    assert small is not None and '"common"' in small[1][0]
    assert large is not None and large[1][0] == '{text dated} : ("rare")'


def test_given_a_table_of_an_older_layout_then_it_is_made_again(db: Database):
    db.executescript("CREATE VIRTUAL TABLE memory_fts USING fts5(text, memory_id UNINDEXED);")

    KeywordTable(db, term_cap=100, words=english())

    made = db.read().execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts'").fetchone()[0]
    assert table_args(made) == table_args(SCHEMA)


def test_given_deleted_rows_when_the_table_is_optimized_then_the_others_still_match(db: Database):
    table = KeywordTable(db, term_cap=100, words=english())
    kept, deleted = records_of(["bees kept", "bees deleted"])
    with db.write() as conn:
        table.insert(conn, [(1, kept), (2, deleted)])
    with db.write() as conn:
        table.delete(conn, [2])

    table.optimize()

    assert table.secure_delete == secure_delete_supported()
    query = table.query("bees", None, False, None, size=1)
    assert query is not None
    assert [i for i, _ in next(table.ranked(query, 5))] == [kept.id]
