"""Hybrid ranking: the semantic and keyword (BM25) scores of each candidate fused into one score in [0, 1].

- semantic: the cosine similarity, clipped to [0, 1]; the caller's threshold applies to it first;
- keyword: BM25 relative to the best BM25 among the candidates, squared, so in [0, 1]. BM25 adds up the
  evidence of each matched query word; relative to the best match, a memory that shares one common word of
  the question would otherwise earn a large share of the keyword weight. Squared, a match half as strong as
  the best counts a quarter: keywords decide among the strong matches and the semantic score among the rest;
- fused: the weighted mean of the two; when no candidate matched any keyword, the semantic score alone.

On LoCoMo (recall@10 of the evidence turn, all-MiniLM-L6-v2, the default weights) the squared form beat the
linear one, min-max normalisation of both scores, and reciprocal-rank fusion; mnemo_bench.locomo (bench/evaluation)
measures them.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

from mnemo.ports.memory_index import IndexHit

KEYWORD_EXPONENT = 2.0
# Added to the score of a memory that states what the query asks about (its facet): enough that an answer ranks above
# a memory that only shares the question's words, without moving LoCoMo dev recall (bench/memory_quality).
ANSWER_BOOST = 0.6


@dataclass(frozen=True, slots=True)
class RankingWeights:
    semantic: float = 0.5
    keyword: float = 0.5


@dataclass(frozen=True, slots=True)
class Ranked:
    memory_id: str
    score: float
    details: dict[str, Any] = field(default_factory=dict)


def fuse(
    hits: list[IndexHit],
    *,
    threshold: float,
    top_k: int,
    weights: RankingWeights,
    answers: frozenset[str] = frozenset(),
) -> list[Ranked]:
    """The best `top_k` hits by fused score. `answers`: memories that state what the query asks about (its facet:
    the language pack's `asked_facets`) — the threshold does not drop them, and ANSWER_BOOST is added to their score
    (within 1): a question about where someone works finds "I quit Google and joined Stripe" though its words and
    its meaning are far from the question's."""
    best_keyword = max((h.keyword for h in hits), default=0.0)
    max_possible = weights.semantic + (weights.keyword if best_keyword > 0 else 0.0)
    scored = _scored(hits, threshold, weights, answers, best_keyword=best_keyword, max_possible=max_possible)
    # Best first; equal scores keep the index's order. Only the kept few are explained.
    best = heapq.nsmallest(max(top_k, 0), scored, key=lambda s: (-s[0], s[1]))
    return [
        Ranked(
            hits[position].memory_id,
            final,
            {
                "semantic_score": round(semantic, 6),
                "bm25_score": round(keyword, 6),
                "bm25_relative": round(relative, 6),
                "bm25_raw": round(hits[position].keyword, 6),
                "entity_boost": 0.0,
                "answer_boost": ANSWER_BOOST if hits[position].memory_id in answers else 0.0,
                "raw_score": round(raw, 6),
                "max_possible_score": max_possible,
                "final_score": round(final, 6),
                "threshold": threshold,
            },
        )
        for final, position, semantic, relative, keyword, raw in best
    ]


# A hit's fused score: final, its position in the index's order, semantic, relative BM25, keyword, raw.
_Scored = tuple[float, int, float, float, float, float]


def _scored(
    hits: list[IndexHit],
    threshold: float,
    weights: RankingWeights,
    answers: frozenset[str],
    *,
    best_keyword: float,
    max_possible: float,
) -> list[_Scored]:
    """Each hit's fused score, but those whose semantic score is under the threshold (and that are no answer); one
    loop, not a call per hit: a search fuses hundreds of candidates."""
    scored: list[_Scored] = []
    for position, hit in enumerate(hits):
        semantic = min(max(hit.semantic, 0.0), 1.0)
        answer = hit.memory_id in answers
        if semantic < threshold and not answer:
            continue
        relative = min(max(hit.keyword / best_keyword, 0.0), 1.0) if best_keyword > 0 else 0.0
        keyword = relative**KEYWORD_EXPONENT
        raw = weights.semantic * semantic + weights.keyword * keyword
        final = min(raw / max_possible, 1.0) if max_possible > 0 else 0.0
        if answer:
            final = min(final + ANSWER_BOOST, 1.0)
        scored.append((final, position, semantic, relative, keyword, raw))
    return scored
