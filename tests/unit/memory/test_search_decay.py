"""Memory decay in a search (services/memory/search/decay.py): relevance times freshness, the access log read in one
call and written with what is returned, and a log that is down never failing the search."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from mnemo.domain.memory import MemoryRecord
from mnemo.services.commands import SearchResult
from mnemo.services.decay import Decay, DecaySettings, record_multiplier
from mnemo.services.memory.search.decay import Decaying, clamped
from tests.unit.memory.fakes import ALICE, ListAccessLog

NOW = datetime(2026, 2, 1, tzinfo=UTC)
DECAY = Decay(DecaySettings(half_life_days=30.0), NOW)


def result(text: str, score: float, days_old: float) -> SearchResult:
    record = MemoryRecord.create(text, ALICE, at=NOW - timedelta(days=days_old))
    return SearchResult(record, score, {"final_score": score})


def test_each_relevance_is_multiplied_by_its_freshness_and_the_product_ranks() -> None:
    old, fresh = result("old", 0.9, 365), result("fresh", 0.5, 0)

    found = Decaying(None).decayed([old, fresh], DECAY)

    assert [r.record.text for r in found] == ["fresh", "old"]
    assert found[0].score == pytest.approx(0.5 * record_multiplier(fresh.record, (), DECAY))
    assert (found[0].details["relevance_score"], found[0].details["decay_multiplier"]) == (
        0.5,
        round(record_multiplier(fresh.record, (), DECAY), 6),
    )


def test_recorded_accesses_lift_a_memory_and_what_is_returned_is_recorded() -> None:
    log = ListAccessLog()
    used, unused = result("used", 0.5, 10), result("unused", 0.5, 10)
    log.record({used.record.id: [NOW - timedelta(hours=h) for h in range(5)]})
    decaying = Decaying(log)

    found = decaying.decayed([unused, used], DECAY)
    decaying.reinforce(found[:1], DECAY)

    assert [r.record.text for r in found] == ["used", "unused"]
    assert log.times[used.record.id][0] == NOW and unused.record.id not in log.times


def test_a_log_that_is_down_ranks_by_age_alone_and_records_nothing() -> None:
    log = ListAccessLog()
    log.failing = True
    found = Decaying(log).decayed([result("a", 0.5, 0)], DECAY)
    Decaying(log).reinforce(found, DECAY)
    assert found[0].details["decay_multiplier"] == round(record_multiplier(found[0].record, (), DECAY), 6)


def test_the_answered_score_is_the_product_within_0_and_1() -> None:
    high = replace(result("a", 1.3, 0), details={"final_score": 1.3})
    assert (clamped(high).score, clamped(high).details["final_score"]) == (1.0, 1.0)
    assert clamped(result("b", -0.2, 0)).score == 0.0
