"""The FTS5 query of a keyword search, as SQL and parameters."""

from __future__ import annotations

import numpy as np

from mnemo.adapters.sqlite.memory_index.keyword_query import (
    SCHEMA,
    among,
    keyword_query,
    quoted,
    table_args,
    term_match,
)


def test_given_no_terms_or_no_users_then_there_is_no_query():
    assert keyword_query([], None, False) is None
    assert keyword_query(["lisbon"], set(), True) is None


def test_given_terms_then_any_of_them_is_matched_in_the_text_and_date_best_first():
    sql, params = keyword_query(["lisbon", "nurse"], {"alice"}, False) or ("", [])

    assert params == ['{text dated} : ("lisbon" OR "nurse")']
    assert "user_id IN" not in sql  # not narrowed: the caller's filter keeps the users' rows
    assert sql.endswith("ORDER BY bm25(memory_fts, 1.0, 0.0, 0.0, 1.0) LIMIT ?")


def test_given_users_holding_a_small_share_then_the_match_and_the_rows_are_narrowed_to_them():
    sql, params = keyword_query(["lisbon"], {"bob", "alice"}, True) or ("", [])

    assert params == ['{text dated} : ("lisbon") AND user_id : ("alice" OR "bob")', "alice", "bob"]
    assert "AND user_id IN (?, ?) ORDER BY" in sql


def test_given_a_user_id_without_a_word_then_only_the_exact_test_narrows():
    sql, params = keyword_query(["lisbon"], {"--"}, True) or ("", [])

    assert params == ['{text dated} : ("lisbon")', "--"]
    assert "AND user_id IN (?) ORDER BY" in sql


def test_given_keys_then_the_query_is_kept_to_their_rows_before_its_order():
    query = keyword_query(["lisbon"], None, False)
    assert query is not None

    sql, params = among(query, np.array([3, 11], dtype=np.int64))

    assert "MATCH ? AND rowid IN (3, 11) ORDER BY bm25" in sql
    assert params == query[1]


def test_given_text_with_quotes_then_it_is_one_phrase_with_no_query_syntax():
    assert quoted('say "hi" OR') == '"say ""hi"" OR"'
    assert term_match("nurse") == '{text dated} : "nurse"'


def test_given_a_create_statement_then_its_arguments_are_compared_whitespace_apart():
    spaced = SCHEMA.replace(", ", ",\n    ")

    assert table_args(spaced) == table_args(SCHEMA)
    assert table_args("CREATE VIRTUAL TABLE t USING fts5(text)") == "text"
