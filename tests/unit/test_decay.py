"""Memory decay's freshness multiplier (mnemo.services.decay): its bounds, its fall with age, what accesses add,
and the event time it counts age from."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from mnemo.domain.memory import LifecycleState, MemoryRecord, Scope
from mnemo.services.decay import (
    ACCESS_HISTORY,
    FRESH_SHARE,
    MAX_ACCESS_BOOST,
    MAX_MULTIPLIER,
    MIN_MULTIPLIER,
    Decay,
    DecaySettings,
    access_weight,
    event_time,
    freshness,
    multiplier,
    record_multiplier,
)
from mnemo.settings import Settings

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SETTINGS = DecaySettings(half_life_days=30.0, access_boost=0.3, access_half_life_days=7.0)


def days(n: float) -> timedelta:
    return timedelta(days=n)


def test_a_memory_stated_now_and_never_used_is_at_1_2_one_half_life_old_at_0_75_and_an_old_one_at_the_floor():
    assert multiplier(NOW, [], NOW, SETTINGS) == pytest.approx(MIN_MULTIPLIER + FRESH_SHARE) == pytest.approx(1.2)
    assert multiplier(NOW - days(30), [], NOW, SETTINGS) == pytest.approx(0.75)
    assert multiplier(NOW - days(3000), [], NOW, SETTINGS) == pytest.approx(MIN_MULTIPLIER)


def test_a_fresh_memory_used_often_reaches_the_ceiling():
    many = [NOW - timedelta(minutes=m) for m in range(ACCESS_HISTORY)]
    assert multiplier(NOW, many, NOW, SETTINGS) == pytest.approx(MAX_MULTIPLIER, abs=1e-5)


AGES = [0.0, 1e-9, 0.5, 1.0, 29.9, 30.0, 90.0, 365.0, 10_000.0, -5.0]  # -5: stated after `at` (a future timestamp)
ACCESS_PATTERNS: list[list[timedelta]] = [
    [],
    [days(0)],
    [days(0)] * 200,  # far more than are kept: only the newest 20 count
    [days(-3)] * 5,  # accesses after `at` (a clock skew)
    [days(d) for d in range(0, 400, 20)],
]
EXTREMES = [
    DecaySettings(half_life_days=1e-6, access_boost=MAX_ACCESS_BOOST, access_half_life_days=1e-6),
    DecaySettings(half_life_days=36500, access_boost=MAX_ACCESS_BOOST, access_half_life_days=36500),
    DecaySettings(half_life_days=30, access_boost=0.0, access_half_life_days=7),
    SETTINGS,
]


@pytest.mark.parametrize(("age", "pattern", "settings"), list(itertools.product(AGES, ACCESS_PATTERNS, EXTREMES)))
def test_the_multiplier_never_leaves_0_3_to_1_5(age: float, pattern: list[timedelta], settings: DecaySettings):
    value = multiplier(NOW - days(age), [NOW - ago for ago in pattern], NOW, settings)
    assert MIN_MULTIPLIER <= value <= MAX_MULTIPLIER


@pytest.mark.parametrize("accessed", [False, True])
def test_the_multiplier_falls_as_the_memory_ages(accessed: bool):
    accesses = [NOW - days(1), NOW - days(2)] if accessed else []
    values = [multiplier(NOW - days(age), accesses, NOW, SETTINGS) for age in (0, 1, 7, 30, 60, 180, 720)]
    assert values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)  # strictly: every day of age counts until the floor


def test_a_memory_stated_in_the_future_counts_as_stated_now():
    assert multiplier(NOW + days(10), [], NOW, SETTINGS) == multiplier(NOW, [], NOW, SETTINGS)


def test_recent_accesses_raise_the_multiplier_and_more_of_them_raise_it_more():
    stated = NOW - days(10)
    none = multiplier(stated, [], NOW, SETTINGS)
    one = multiplier(stated, [NOW], NOW, SETTINGS)
    three = multiplier(stated, [NOW, NOW - days(1), NOW - days(2)], NOW, SETTINGS)
    assert none < one < three
    # what accesses add is at most access_boost, scaled by the memory's freshness
    assert three - none < SETTINGS.access_boost * freshness(10, SETTINGS.half_life_days) + 1e-12


def test_an_access_counts_less_as_it_ages_and_without_a_boost_not_at_all():
    stated = NOW - days(10)
    fresh = multiplier(stated, [NOW - days(1)], NOW, SETTINGS)
    stale = multiplier(stated, [NOW - days(40)], NOW, SETTINGS)
    assert fresh > stale > multiplier(stated, [], NOW, SETTINGS)
    no_boost = replace(SETTINGS, access_boost=0.0)
    assert multiplier(stated, [NOW] * 20, NOW, no_boost) == multiplier(stated, [], NOW, no_boost)


def test_the_access_weight_halves_the_distance_to_the_full_boost_with_each_fresh_access():
    assert access_weight([], NOW, 7) == 0.0
    assert access_weight([NOW], NOW, 7) == pytest.approx(0.5)
    assert access_weight([NOW, NOW], NOW, 7) == pytest.approx(0.75)
    assert access_weight([NOW - days(7)], NOW, 7) == pytest.approx(1 - 0.5**0.5)


def test_only_the_newest_accesses_count():
    newest = [NOW - timedelta(hours=h) for h in range(ACCESS_HISTORY)]
    older = [NOW - days(1)] * 50
    assert access_weight([*older, *newest], NOW, 7) == access_weight(newest, NOW, 7)


@pytest.mark.parametrize("half_life", [7.0, 30.0, 180.0])
def test_an_outdated_fact_retrieved_however_often_never_outranks_the_fact_stated_well_after_it(half_life: float):
    """The property the formula is built for: the access term is scaled by freshness, so with equal relevance a
    fact stated more than 0.415 half-lives later ranks first, whatever the retrievals of the older one."""
    settings = replace(SETTINGS, half_life_days=half_life)
    retrieved_often = [NOW - timedelta(hours=h) for h in range(ACCESS_HISTORY)]
    for old_age in (1.0, 30.0, 365.0, 3000.0):
        for gap in (0.42 * half_life, half_life, 5 * half_life):
            outdated = multiplier(NOW - days(old_age + gap), retrieved_often, NOW, settings)
            current = multiplier(NOW - days(old_age), [], NOW, settings)
            assert current >= outdated, (old_age, gap)


def record(created: datetime, updated: datetime | None = None, state: LifecycleState = LifecycleState.ACTIVE):
    made = MemoryRecord.create("Lives in Lisbon", Scope(user_id="alice"), at=created)
    return replace(made, updated_at=updated or created, state=state)


def test_age_counts_from_created_at_the_event_time_a_timestamp_sets():
    assert event_time(record(NOW - days(400))) == NOW - days(400)


def test_an_active_memory_changed_later_counts_from_that_change():
    assert event_time(record(NOW - days(400), NOW - days(3))) == NOW - days(3)


@pytest.mark.parametrize("state", [LifecycleState.SUPERSEDED, LifecycleState.MERGED])
def test_a_retired_memory_counts_from_when_it_was_stated_not_from_its_retirement(state: LifecycleState):
    assert event_time(record(NOW - days(400), NOW - days(3), state)) == NOW - days(400)


def test_a_stored_memorys_multiplier_is_that_of_its_event_time():
    memory = record(NOW - days(30), NOW - days(30))
    decay = Decay(SETTINGS, NOW)
    assert record_multiplier(memory, [NOW], decay) == multiplier(NOW - days(30), [NOW], NOW, SETTINGS)


@pytest.mark.parametrize(
    "fields",
    [
        {"half_life_days": 0.0},
        {"half_life_days": -1.0},
        {"half_life_days": float("inf")},
        {"access_half_life_days": 0.0},
        {"access_boost": -0.1},
        {"access_boost": MAX_ACCESS_BOOST + 0.01},
    ],
)
def test_settings_out_of_range_are_refused(fields: dict[str, float]):
    with pytest.raises(ValueError):
        DecaySettings(**fields)


def test_the_deployment_settings_default_to_the_services_defaults():
    settings = Settings()
    assert (
        DecaySettings(settings.decay_half_life_days, settings.decay_access_boost, settings.decay_access_half_life_days)
        == DecaySettings()
    )
