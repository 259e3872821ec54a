"""The reranker port: a second, stronger scoring of a search's candidates (the clients' `rerank=true`).

A search gathers a wide pool of candidates (the best semantic and keyword matches), each with the signals the
index gave it; the reranker scores every one of them, and the search ranks by that score."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class RerankCandidate:
    memory_id: str
    text: str
    created_at: datetime  # when what it says was stated (memories stated together share it)
    semantic: float  # cosine similarity of the embeddings, in [-1, 1]
    keyword: float  # raw BM25 score, 0 when it matched no keyword of the query


class Reranker(Protocol):
    @property
    def name(self) -> str: ...

    def scores(self, query: str, candidates: Sequence[RerankCandidate]) -> list[float]:
        """A score in [0, 1] per candidate, in their order: higher is more relevant."""
        ...
