"""The context a hybrid score gets after fusion: the moment its memory was stated (a memory said where the
conversation was about what the query asks is likelier to answer it), and the time the query names ("last May",
resolved by the language pack's time words: the one place a search reads time words)."""

from __future__ import annotations

from datetime import UTC, datetime

from mnemo.language import TimeWords, Window
from mnemo.services.commands import SearchResult

CONTEXT_WEIGHT = 0.1  # how far a memory is lifted toward the best other one stated at its moment (in_context)
TIME_BOOST = 0.1  # added to a memory of the time the query names


def in_context(found: list[SearchResult]) -> list[SearchResult]:
    """Each score lifted toward the best score among the other candidates stated at the same moment (same
    `created_at`: one add, one session of a conversation) by CONTEXT_WEIGHT of the gap, when that one is higher;
    best first. No score goes down, and a memory alone at its moment keeps its own."""
    moments: dict[datetime, list[float]] = {}
    for result in found:
        moments.setdefault(result.record.created_at, []).append(result.score)
    best_two = {moment: sorted(scores, reverse=True)[:2] for moment, scores in moments.items()}  # once per moment
    out = []
    for result in found:
        scores = best_two[result.record.created_at]
        other = (scores[1] if scores[0] == result.score else scores[0]) if len(scores) > 1 else 0.0
        if other <= result.score:  # nothing to lift it toward: kept as it is (most memories, alone at their moment)
            out.append(result)
            continue
        score = result.score + CONTEXT_WEIGHT * (other - result.score)
        details = {**result.details, "final_score": round(score, 6)}  # no key of its own: the reference's shape
        out.append(SearchResult(result.record, score, details))
    return sorted(out, key=lambda r: r.score, reverse=True)


def in_the_time_asked(
    language: TimeWords, found: list[SearchResult], query: str, reference_date: datetime | None
) -> list[SearchResult]:
    """The results with the memories of the time the query names (resolved against `reference_date`, else now)
    boosted (`in_time`); as they were when it names none."""
    windows = language.query_windows(query, reference_date or datetime.now(UTC))
    return in_time(language, found, windows) if windows else found


def in_time(language: TimeWords, found: list[SearchResult], windows: list[Window]) -> list[SearchResult]:
    """TIME_BOOST added (within 1) to the memories of the time the query names: made then (`created_at`), or naming a
    date of it; best first, equal scores in their order."""
    out = []
    for result in found:
        record = result.record
        inside = any(w.holds(record.created_at) for w in windows) or any(
            named.start < w.end and w.start < named.end for named in language.dates_named(record.text) for w in windows
        )
        boost = TIME_BOOST if inside else 0.0
        details = {**result.details, "time_boost": boost}
        out.append(SearchResult(record, min(result.score + boost, 1.0), details))
    return sorted(out, key=lambda r: r.score, reverse=True)
