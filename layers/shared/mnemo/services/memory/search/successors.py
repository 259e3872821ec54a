"""A search that asks for superseded or merged memories too: each ranks below the current fact it gave way to, so
that the current fact always comes first."""

from __future__ import annotations

from dataclasses import replace

from mnemo.domain.memory import LifecycleState, MemoryRecord
from mnemo.services.commands import SearchResult

# A superseded or merged memory's score, when a search asks for them too: below the current fact it gave way to.
REPLACED_WEIGHT = 0.5


def weighted(found: list[SearchResult]) -> list[SearchResult]:
    """Each score times its memory's weight: 1 for an active memory, REPLACED_WEIGHT for one that was replaced."""
    # SearchResult(...) rather than dataclasses.replace: the same result, without replace's walk of the fields
    return [SearchResult(r.record, r.score * _weight(r.record), r.details) for r in found]


def below_their_successors(found: list[SearchResult]) -> list[SearchResult]:
    """Best first, except that a superseded or merged memory comes right after the memory that replaced it when
    both are found (with at most its score): the current fact always ranks first."""
    found = sorted(found, key=lambda r: r.score, reverse=True)
    ids = {r.record.id for r in found}

    def follows(r: SearchResult) -> bool:
        return r.record.state is not LifecycleState.ACTIVE and r.record.replaced_by in ids

    out = [r for r in found if not follows(r)]
    for moved in (r for r in found if follows(r)):
        at = next((i for i, r in enumerate(out) if r.record.id == moved.record.replaced_by), None)
        if at is None:
            out.append(moved)
            continue
        out.insert(at + 1, replace(moved, score=min(moved.score, out[at].score)))
    return out


def _weight(record: MemoryRecord) -> float:
    return 1.0 if record.state is LifecycleState.ACTIVE else REPLACED_WEIGHT
