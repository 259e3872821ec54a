"""Hybrid ranking: the semantic and keyword (BM25) scores of each candidate fused into one score in [0, 1].

- semantic: the cosine similarity, clipped to [0, 1]; the caller's threshold applies to it first;
- keyword: BM25 divided by the best BM25 among the candidates, so in [0, 1];
- fused: the weighted mean of the two; when no candidate matched any keyword, the semantic score alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemo.ports.memory_index import IndexHit


@dataclass(frozen=True, slots=True)
class RankingWeights:
    semantic: float = 0.5
    keyword: float = 0.5


@dataclass(frozen=True, slots=True)
class Ranked:
    memory_id: str
    score: float
    details: dict[str, Any] = field(default_factory=dict)


def fuse(hits: list[IndexHit], *, threshold: float, top_k: int, weights: RankingWeights) -> list[Ranked]:
    best_keyword = max((h.keyword for h in hits), default=0.0)
    max_possible = weights.semantic + (weights.keyword if best_keyword > 0 else 0.0)
    ranked: list[Ranked] = []
    for hit in hits:
        semantic = min(max(hit.semantic, 0.0), 1.0)
        if semantic < threshold:
            continue
        keyword = hit.keyword / best_keyword if best_keyword > 0 else 0.0
        raw = weights.semantic * semantic + weights.keyword * keyword
        final = min(raw / max_possible, 1.0) if max_possible > 0 else 0.0
        ranked.append(
            Ranked(
                hit.memory_id,
                final,
                {
                    "semantic_score": round(semantic, 6),
                    "bm25_score": round(keyword, 6),
                    "bm25_raw": round(hit.keyword, 6),
                    "entity_boost": 0.0,
                    "raw_score": round(raw, 6),
                    "max_possible_score": max_possible,
                    "final_score": round(final, 6),
                    "threshold": threshold,
                },
            )
        )
    ranked.sort(key=lambda r: -r.score)
    return ranked[:top_k]
