"""Memory decay in a search (a platform project's v3 search with `decay` on): each relevance times its memory's
freshness multiplier (mnemo.services.decay), the candidates' retrievals read in one batched call of the access log,
and what the search returns recorded there as retrieved. The access log is a ranking signal: a failure to read or
record it is logged and the search goes on."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime

from mnemo.ports.memory_access import AccessLog
from mnemo.services.commands import SearchResult
from mnemo.services.decay import Decay, record_multiplier

log = logging.getLogger("mnemo.memories")


class Decaying:
    def __init__(self, accesses: AccessLog | None) -> None:
        self._accesses = accesses

    def decayed(self, found: list[SearchResult], decay: Decay) -> list[SearchResult]:
        """Each result's score multiplied by its freshness multiplier (unclamped: the sort uses the product), best
        first; equal products keep the order of relevance."""
        accesses = self._recent_accesses([r.record.id for r in found])
        out: list[SearchResult] = []
        for result in found:
            factor = record_multiplier(result.record, accesses.get(result.record.id, ()), decay)
            details = {**result.details, "relevance_score": round(result.score, 6)}
            details["decay_multiplier"] = round(factor, 6)
            out.append(SearchResult(result.record, result.score * factor, details))
        return sorted(out, key=lambda r: r.score, reverse=True)

    def reinforce(self, returned: list[SearchResult], decay: Decay) -> None:
        """Record the returned memories as accessed at the search's moment (buffered: written off this path)."""
        if self._accesses is None or not returned:
            return
        try:
            self._accesses.record({r.record.id: [decay.at] for r in returned})
        except Exception:
            log.exception("could not record the accesses of %d memories", len(returned))

    def _recent_accesses(self, memory_ids: list[str]) -> dict[str, list[datetime]]:
        """The candidates' recorded accesses, in one batched read; none when there is no log or it cannot be read
        (a ranking signal must not fail the search)."""
        if self._accesses is None or not memory_ids:
            return {}
        try:
            return self._accesses.recent(memory_ids)
        except Exception:
            log.exception("could not read the accesses of %d memories: ranking by age alone", len(memory_ids))
            return {}


def clamped(result: SearchResult) -> SearchResult:
    """A decayed result with its public score: the product within [0, 1]."""
    score = min(max(result.score, 0.0), 1.0)
    return replace(result, score=score, details={**result.details, "final_score": round(score, 6)})
