"""The steps of a search after fusion, on results made by hand: the context of a memory's moment and the time the
query names (search/context.py), a replaced memory below its successor (search/successors.py), the reranker's
scores (search/rerank.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from mnemo.domain.memory import LifecycleState, MemoryRecord
from mnemo.language.en import english
from mnemo.services.commands import SearchResult
from mnemo.services.memory.search.context import (
    CONTEXT_WEIGHT,
    TIME_BOOST,
    in_context,
    in_the_time_asked,
)
from mnemo.services.memory.search.rerank import reranked
from mnemo.services.memory.search.successors import REPLACED_WEIGHT, below_their_successors, weighted
from tests.unit.memory.fakes import ALICE, PreferringReranker

MAY = datetime(2025, 5, 10, tzinfo=UTC)
JUNE = datetime(2025, 6, 10, tzinfo=UTC)


def result(text: str, score: float, at: datetime = MAY, **fields: Any) -> SearchResult:
    record = replace(MemoryRecord.create(text, ALICE, at=at), **fields)
    details = {"final_score": score, "semantic_score": score, "bm25_raw": 0.0}
    return SearchResult(record, score, details)


def test_a_memory_is_lifted_toward_the_best_other_one_stated_at_its_moment() -> None:
    best, low, alone = result("a", 0.8), result("b", 0.4), result("c", 0.5, JUNE)

    lifted = {r.record.text: r.score for r in in_context([low, best, alone])}

    assert lifted == {"a": 0.8, "b": 0.4 + CONTEXT_WEIGHT * 0.4, "c": 0.5}
    assert [r.record.text for r in in_context([low, best, alone])] == ["a", "c", "b"]


def test_the_memories_of_the_time_the_query_names_are_boosted() -> None:
    may, june = result("Went hiking", 0.5, MAY), result("Went sailing", 0.55, JUNE)

    found = in_the_time_asked(english(), [june, may], "What did I do last May?", datetime(2025, 7, 1, tzinfo=UTC))

    assert [(r.record.text, r.details["time_boost"]) for r in found] == [
        ("Went hiking", TIME_BOOST),
        ("Went sailing", 0),
    ]
    assert in_the_time_asked(english(), [june, may], "What do I do?", None) == [
        june,
        may,
    ]  # no time named: as they were


def test_a_replaced_memory_weighs_less_and_follows_the_memory_that_replaced_it() -> None:
    porto = result("Lives in Porto", 0.5)
    paris = result("Lives in Paris", 0.9, state=LifecycleState.OUTDATED, replaced_by=porto.record.id)
    tea = result("Likes tea", 0.6)

    ordered = below_their_successors(weighted([paris, porto, tea]))

    assert [(r.record.text, r.score) for r in ordered] == [
        ("Likes tea", 0.6),
        ("Lives in Porto", 0.5),
        ("Lives in Paris", min(0.9 * REPLACED_WEIGHT, 0.5)),
    ]


def test_a_replaced_memory_found_without_its_successor_keeps_its_place() -> None:
    gone = result("Lives in Paris", 0.9, state=LifecycleState.SUPERSEDED, replaced_by="not-found")
    tea = result("Likes tea", 0.2)
    assert [(r.record.text, r.score) for r in below_their_successors([tea, gone])] == [
        ("Lives in Paris", 0.9),
        ("Likes tea", 0.2),
    ]


def test_reranked_results_take_the_rerankers_score_and_keep_the_hybrids() -> None:
    found = [result("Likes tea", 0.9), result("Lives in Porto", 0.2)]
    reranker = PreferringReranker("Lives in Porto")

    out = reranked(reranker, "Where do I live?", found)

    assert [(r.record.text, r.score) for r in out] == [("Lives in Porto", 1.0), ("Likes tea", 0.1)]
    assert (out[0].details["hybrid_score"], out[0].details["rerank_score"]) == (0.2, 1.0)
    ((query, candidates),) = reranker.asked
    assert query == "Where do I live?" and [c.text for c in candidates] == ["Likes tea", "Lives in Porto"]


def test_an_older_moment_is_not_lifted_by_a_later_one() -> None:
    older, newer = result("a", 0.3, MAY), result("b", 0.9, MAY + timedelta(seconds=1))
    assert {r.record.text: r.score for r in in_context([older, newer])} == {"a": 0.3, "b": 0.9}
