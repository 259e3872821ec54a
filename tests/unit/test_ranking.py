"""Hybrid ranking: semantic and BM25 scores fused into one score in [0, 1]."""

from __future__ import annotations

import pytest

from mnemo.ports.memory_index import IndexHit
from mnemo.services.memory.search.fuse import ANSWER_BOOST, RankingWeights, fuse

EVEN = RankingWeights()
DETAIL_KEYS = {
    "semantic_score",
    "bm25_score",
    "bm25_relative",
    "bm25_raw",
    "entity_boost",
    "answer_boost",
    "raw_score",
    "max_possible_score",
    "final_score",
    "threshold",
}


def test_given_no_hits_when_fused_then_nothing():
    assert fuse([], threshold=0.0, top_k=10, weights=EVEN) == []


def test_given_no_keyword_matches_when_fused_then_the_score_is_the_semantic_score():
    hits = [IndexHit("a", 0.42, 0.0), IndexHit("b", 0.9, 0.0)]

    ranked = fuse(hits, threshold=0.0, top_k=10, weights=EVEN)

    assert [r.memory_id for r in ranked] == ["b", "a"]
    assert [r.score for r in ranked] == pytest.approx([0.9, 0.42])
    assert ranked[0].details["max_possible_score"] == EVEN.semantic


def test_given_keyword_matches_when_fused_then_bm25_relative_to_the_best_is_squared_and_averaged_in():
    hits = [IndexHit("a", 0.8, 0.0), IndexHit("b", 0.4, 4.0), IndexHit("c", 0.6, 2.0)]

    ranked = {r.memory_id: r for r in fuse(hits, threshold=0.0, top_k=10, weights=EVEN)}

    assert ranked["b"].details["bm25_relative"] == 1.0
    assert ranked["c"].details["bm25_relative"] == 0.5
    assert ranked["a"].details["bm25_relative"] == 0.0
    assert ranked["b"].details["bm25_score"] == 1.0
    assert ranked["c"].details["bm25_score"] == 0.25  # half the best match's evidence counts a quarter
    assert ranked["a"].details["bm25_score"] == 0.0
    assert ranked["b"].details["bm25_raw"] == 4.0
    # The weighted mean over the maximum possible (both weights, since some candidate matched keywords).
    assert ranked["a"].score == pytest.approx(0.4)
    assert ranked["b"].score == pytest.approx(0.7)
    assert ranked["c"].score == pytest.approx(0.425)
    assert ranked["b"].details["max_possible_score"] == 1.0


def test_given_a_weak_partial_keyword_match_when_fused_then_it_does_not_outrank_a_clearly_closer_meaning():
    hits = [IndexHit("close-meaning", 0.7, 0.0), IndexHit("one-shared-word", 0.3, 2.0), IndexHit("all-words", 0.2, 4.0)]

    ranked = fuse(hits, threshold=0.0, top_k=10, weights=EVEN)

    assert [r.memory_id for r in ranked] == ["all-words", "close-meaning", "one-shared-word"]
    assert [r.score for r in ranked] == pytest.approx([0.6, 0.35, 0.275])


def test_given_hits_when_fused_then_they_are_ordered_by_fused_score_not_by_semantic_score():
    hits = [IndexHit("semantic-best", 0.8, 0.0), IndexHit("keyword-best", 0.4, 4.0), IndexHit("mid", 0.6, 2.0)]

    ranked = fuse(hits, threshold=0.0, top_k=10, weights=EVEN)

    assert [r.memory_id for r in ranked] == ["keyword-best", "mid", "semantic-best"]
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)


def test_given_uneven_weights_when_fused_then_they_shift_the_balance():
    hits = [IndexHit("a", 0.8, 0.0), IndexHit("b", 0.4, 4.0)]

    semantic_heavy = fuse(hits, threshold=0.0, top_k=10, weights=RankingWeights(semantic=0.9, keyword=0.1))
    keyword_heavy = fuse(hits, threshold=0.0, top_k=10, weights=RankingWeights(semantic=0.2, keyword=0.8))

    assert [r.memory_id for r in semantic_heavy] == ["a", "b"]
    assert semantic_heavy[0].score == pytest.approx(0.72)
    assert [r.memory_id for r in keyword_heavy] == ["b", "a"]
    assert keyword_heavy[0].score == pytest.approx(0.88)


def test_given_a_threshold_when_fused_then_it_gates_on_the_semantic_score_even_for_keyword_hits():
    hits = [IndexHit("weak-but-keyword", 0.2, 10.0), IndexHit("strong", 0.7, 0.0), IndexHit("edge", 0.3, 1.0)]

    ranked = fuse(hits, threshold=0.3, top_k=10, weights=EVEN)

    assert {r.memory_id for r in ranked} == {"strong", "edge"}
    assert all(r.details["threshold"] == 0.3 for r in ranked)
    assert all(r.details["semantic_score"] >= 0.3 for r in ranked)


def test_given_a_threshold_of_one_when_fused_then_only_perfect_semantic_matches_survive():
    hits = [IndexHit("exact", 1.0, 0.0), IndexHit("close", 0.99, 5.0)]

    assert [r.memory_id for r in fuse(hits, threshold=1.0, top_k=10, weights=EVEN)] == ["exact"]


def test_given_out_of_range_similarities_when_fused_then_scores_stay_within_zero_and_one():
    hits = [
        IndexHit("negative", -0.6, 3.0),
        IndexHit("above-one", 1.0000004, 12.5),
        IndexHit("zero", 0.0, 0.0),
        IndexHit("mid", 0.5, 0.1),
    ]

    ranked = fuse(hits, threshold=0.0, top_k=10, weights=EVEN)

    assert len(ranked) == 4
    by_id = {r.memory_id: r for r in ranked}
    assert by_id["negative"].details["semantic_score"] == 0.0
    assert by_id["above-one"].details["semantic_score"] == 1.0
    assert by_id["above-one"].score == 1.0
    for r in ranked:
        assert 0.0 <= r.score <= 1.0
        assert 0.0 <= r.details["bm25_score"] <= 1.0
        assert r.details["final_score"] == pytest.approx(r.score, abs=1e-6)


def test_given_more_hits_than_top_k_when_fused_then_only_the_best_top_k_are_kept():
    hits = [IndexHit(f"m{i}", i / 10, 0.0) for i in range(10)]

    ranked = fuse(hits, threshold=0.0, top_k=3, weights=EVEN)

    assert [r.memory_id for r in ranked] == ["m9", "m8", "m7"]
    assert fuse(hits, threshold=0.0, top_k=0, weights=EVEN) == []


def test_given_a_hit_when_fused_then_details_explain_the_score():
    ranked = fuse([IndexHit("a", 0.6, 2.0), IndexHit("b", 0.5, 4.0)], threshold=0.1, top_k=5, weights=EVEN)

    a = next(r for r in ranked if r.memory_id == "a")
    assert set(a.details) == DETAIL_KEYS
    assert a.details == {
        "semantic_score": 0.6,
        "bm25_score": 0.25,
        "bm25_relative": 0.5,
        "bm25_raw": 2.0,
        "entity_boost": 0.0,
        "answer_boost": 0.0,
        "raw_score": pytest.approx(0.425),
        "max_possible_score": 1.0,
        "final_score": pytest.approx(0.425),
        "threshold": 0.1,
    }


def test_given_zero_weights_when_fused_then_scores_are_zero_not_an_error():
    ranked = fuse([IndexHit("a", 0.6, 0.0)], threshold=0.0, top_k=5, weights=RankingWeights(semantic=0.0, keyword=0.0))

    assert [r.score for r in ranked] == [0.0]


def test_a_memory_that_answers_the_question_passes_the_threshold_and_is_boosted():
    hits = [IndexHit("name", 0.7, 0.0), IndexHit("works", 0.05, 0.0), IndexHit("noise", 0.05, 0.0)]

    ranked = fuse(hits, threshold=0.1, top_k=5, weights=EVEN, answers=frozenset({"works"}))

    assert [r.memory_id for r in ranked] == ["name", "works"]  # "noise" under the threshold; "works" is an answer
    works = ranked[1]
    assert works.details["answer_boost"] == ANSWER_BOOST and works.score == pytest.approx(0.05 + ANSWER_BOOST)
    assert ranked[0].details["answer_boost"] == 0.0
