"""A search with `rerank`: the candidates re-scored by the deployment's reranker (the `Reranker` port), over a pool
wider than a hybrid search's."""

from __future__ import annotations

from mnemo.ports.reranker import RerankCandidate, Reranker
from mnemo.services.commands import SearchResult

RERANK_POOL = 100  # a reranked search's candidates: the best 100 semantic and the best 100 keyword matches
RERANK_UNAVAILABLE = "rerank is not available on this deployment: it has no reranker."


def reranked(reranker: Reranker | None, query: str, found: list[SearchResult]) -> list[SearchResult]:
    """The candidates re-scored by the reranker, best first: the score is the reranker's, in [0, 1]. A memory
    that states what the query asks about is among the candidates whatever its semantic score, but gets no
    boost here: the reranker decides (with the hybrid's answer boost kept, LoCoMo dev's temporal recall was
    lower)."""
    assert reranker is not None
    scores = reranker.scores(
        query,
        [
            RerankCandidate(
                r.record.id, r.record.text, r.record.created_at, r.details["semantic_score"], r.details["bm25_raw"]
            )
            for r in found
        ],
    )
    out = []
    for result, score in zip(found, scores, strict=True):
        final = min(max(score, 0.0), 1.0)
        details = {**result.details, "hybrid_score": result.details["final_score"], "rerank_score": round(score, 6)}
        details["final_score"] = round(final, 6)
        out.append(SearchResult(result.record, final, details))
    return sorted(out, key=lambda r: r.score, reverse=True)
