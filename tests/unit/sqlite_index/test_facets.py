"""The facets: rows filed under the facets of their hot fields, and the path a search pinned to facets takes."""

from __future__ import annotations

import numpy as np

from mnemo.adapters.sqlite.memory_index import facets as facets_module
from mnemo.adapters.sqlite.memory_index.facets import FacetChoice, FacetIndex, filed_rows
from mnemo.adapters.sqlite.memory_index.row_documents import FACETS_AT, HOT
from mnemo.domain.filters import And, Condition, parse
from mnemo.domain.memory import FACETS_FIELD
from tests.unit.sqlite_index.making import filled, records_of, unit_rows


def hot_of(*facets: str) -> tuple[object, ...]:
    values: list[object] = [None] * len(HOT)
    values[FACETS_AT] = tuple(facets) or None
    return tuple(values)


def pinned(*facets: str, user: str | None = None) -> And:
    conditions = [Condition(FACETS_FIELD, "in", list(facets))]
    if user is not None:
        conditions.append(Condition("user_id", "eq", user))
    return And(tuple(conditions))


def test_given_rows_filed_under_facets_then_their_keys_and_counts_are_known_until_they_are_unfiled():
    index = FacetIndex()
    index.file([1, 2, 3], [hot_of("name"), hot_of("name", "pets"), hot_of()])

    assert index.count({"name"}) == 2
    assert index.count({"name", "pets"}) == 3  # a row under two facets counts twice
    assert sorted(index.keys({"name", "pets"}).tolist()) == [1, 2]
    assert index.keys({"unknown"}).tolist() == []

    index.unfile([(2, hot_of("name", "pets"))])

    assert index.keys({"name", "pets"}).tolist() == [1]
    index.clear()
    assert index.count({"name"}) == 0


def test_given_a_filter_pinning_no_facet_then_the_choice_is_empty():
    assert FacetIndex().choose(parse({"user_id": "alice"}), None, 1_000) == FacetChoice()


def test_given_a_facet_on_few_of_the_rows_searched_then_its_rows_are_the_candidates_and_the_keyword_rows():
    index = FacetIndex()
    index.file([4, 9], [hot_of("name"), hot_of("name")])

    choice = index.choose(pinned("name"), None, 100)

    assert choice.facets == {"name"}
    assert choice.candidates is not None and sorted(choice.candidates.tolist()) == [4, 9]
    assert choice.among is not None and sorted(choice.among.tolist()) == [4, 9]


def test_given_a_facet_on_more_rows_than_the_keyword_query_lists_then_the_keyword_search_is_not_kept_to_them(
    monkeypatch,
):
    monkeypatch.setattr(facets_module, "AMONG_MAX", 1)
    index = FacetIndex()
    index.file([4, 9], [hot_of("name"), hot_of("name")])

    choice = index.choose(pinned("name"), None, 100)

    assert choice.candidates is not None and len(choice.candidates) == 2
    assert choice.among is None


def test_given_a_facet_on_many_rows_when_a_few_are_searched_then_the_scope_rows_filed_under_it_are_the_candidates():
    records = records_of(["Name is Ann", "a note", "Name is Bo", "b note"], ["alice", "alice", "bob", "bob"])
    partitions, keys = filled(records, unit_rows(4, seed=1))
    index = FacetIndex()
    index.file(keys, [part.hot[row] for part in partitions.live() for row in range(len(part))])
    alice = partitions.scoped({"alice"})

    choice = index.choose(pinned("name", user="alice"), alice, 2)  # the facet's 2 rows: more than 2 // 4

    assert choice.candidates is not None and choice.candidates.tolist() == [keys[0]]
    assert choice.among is None
    assert filed_rows(partitions.live(), {"name"}).tolist() == [keys[0], keys[2]]


def test_given_a_facet_on_many_rows_of_a_broad_search_then_only_the_facets_are_chosen():
    index = FacetIndex()
    index.file(range(10), [hot_of("name")] * 10)

    choice = index.choose(pinned("name"), None, 20)

    assert choice == FacetChoice({"name"})
    allowed = index.allowed(choice)
    assert allowed is not None and sorted(allowed.tolist()) == list(range(10))
    assert index.allowed(FacetChoice()) is None


def test_given_partitions_without_the_facet_then_no_row_is_filed():
    partitions, _ = filled(records_of(["a note"]), unit_rows(1, seed=2))

    assert filed_rows(partitions.live(), {"name"}).dtype == np.int64
    assert filed_rows(partitions.live(), {"name"}).tolist() == []
