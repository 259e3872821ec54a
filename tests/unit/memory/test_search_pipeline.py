"""One search from its command (services/memory/search/pipeline.py): checked, relevant, decayed and ordered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mnemo.domain import filters as f
from mnemo.domain.memory import CURRENT_AND_OUTDATED, LifecycleState
from mnemo.errors import ValidationError
from mnemo.services.commands import SearchCommand, SearchResult
from mnemo.services.decay import Decay, DecaySettings
from mnemo.services.memory.search.pipeline import SearchPipeline
from mnemo.services.memory.search.rerank import RERANK_UNAVAILABLE
from tests.unit.memory.fakes import ListAccessLog, Namespace, PreferringReranker

ALICE_FILTER = f.Condition("user_id", "eq", "alice")
NOW = datetime(2026, 2, 1, tzinfo=UTC)


def search(ns: Namespace, query: str, **options: Any) -> list[SearchResult]:
    return SearchPipeline(ns.parts).search(SearchCommand(query, ALICE_FILTER, **options))


@pytest.mark.parametrize(
    ("query", "options", "message"),
    [
        ("  ", {}, "empty"),
        ("tea", {"threshold": 1.5}, "threshold"),
        ("tea", {"top_k": -1}, "top_k"),
        ("tea", {"rerank": True}, RERANK_UNAVAILABLE),
    ],
)
def test_a_search_that_cannot_be_made_is_refused(ns: Namespace, query: str, options: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        search(ns, query, **options)


def test_the_most_relevant_memories_come_first_within_top_k(ns: Namespace) -> None:
    ns.put("Drinks green tea every morning")
    ns.put("Plays chess on Sundays")
    ns.put("Drinks coffee at work")

    found = search(ns, "green tea", top_k=2, threshold=0.0)

    assert len(found) == 2 and found[0].record.text == "Drinks green tea every morning"
    assert search(ns, "green tea", top_k=0) == []


def test_a_replaced_memory_asked_for_ranks_below_the_current_fact(ns: Namespace) -> None:
    porto = ns.put("Lives in Porto")
    ns.put("Lives in Paris with green tea", state=LifecycleState.OUTDATED, replaced_by=porto.id)

    found = search(ns, "Lives in Paris with green tea", threshold=0.0, states=CURRENT_AND_OUTDATED)

    assert [r.record.text for r in found] == ["Lives in Porto", "Lives in Paris with green tea"]


def test_a_decayed_search_ranks_by_freshness_answers_within_0_and_1_and_records_what_it_returns(
    make_namespace: Any,
) -> None:
    log = ListAccessLog()
    ns = make_namespace(accesses=log)
    old = ns.put("Drinks green tea", created_at=NOW - timedelta(days=3650), updated_at=NOW - timedelta(days=3650))
    fresh = ns.put("Drinks green tea daily", created_at=NOW, updated_at=NOW)

    found = search(ns, "Drinks green tea", top_k=1, threshold=0.0, decay=Decay(DecaySettings(), NOW))

    assert [r.record.id for r in found] == [fresh.id]
    assert 0.0 <= found[0].score <= 1.0 and "decay_multiplier" in found[0].details
    assert list(log.times) == [fresh.id] and old.id not in log.times


def test_a_reranked_search_takes_the_rerankers_order(make_namespace: Any) -> None:
    ns = make_namespace(reranker=PreferringReranker("Plays chess on Sundays"))
    ns.put("Drinks green tea every morning")
    ns.put("Plays chess on Sundays")

    found = search(ns, "green tea", threshold=0.0, rerank=True)

    assert [r.record.text for r in found] == ["Plays chess on Sundays", "Drinks green tea every morning"]
