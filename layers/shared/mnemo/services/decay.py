"""Memory decay: a memory's freshness multiplier, in [0.3, 1.5], that a decayed search (a platform project's v3
search with `decay` on) multiplies its relevance by.

    multiplier = 0.3 + freshness × (0.9 + access_boost × access_weight), within [0.3, 1.5]

- `freshness` = 0.5 ** (age / half_life), the age counted from the memory's event time (`event_time`): when what
  it says happened — its `created_at`, which a platform add's or update's `timestamp` sets — or, for an active
  memory changed since, its `updated_at` (a text update restates it now). Never from its accesses: being read
  does not make a fact newer.
- `access_weight`, in [0, 1): how much the memory was used lately. Each of its last ACCESS_HISTORY accesses
  (retrievals by a decayed search) counts 0.5 ** (its own age / access_half_life), and the sum S gives
  1 − 0.5 ** S: one fresh access is worth half the boost, two three quarters, and old ones fade.
- `access_boost` (0 to MAX_ACCESS_BOOST): what accesses add at most, as a share of freshness.

A memory stated now and never used is at 1.2, used often 1.2 + access_boost (1.5 at the largest boost); one
half-life old 0.75; very old 0.3, used or not. Because the access term is scaled by freshness, retrievals reorder
memories of about the same age but never lift an outdated fact over the one that replaced it: with equal relevance,
a fact stated `gap` later always ranks above the older one once 0.5 ** (gap / half_life) < 0.9 / (0.9 +
access_boost), i.e. for a gap over 0.15 half-lives at the default boost (0.42 at the largest), however often the
older one is retrieved.

The defaults (a year's half-life, boost 0.1, a retrieval counting half after two weeks) were chosen on
bench/decay.py: a scripted set of changing facts, and LoCoMo (bench/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from mnemo.domain.memory import LifecycleState, MemoryRecord

MIN_MULTIPLIER = 0.3
MAX_MULTIPLIER = 1.5
FRESH_SHARE = 0.9  # what full freshness adds to the floor: a memory stated now and never used is at 1.2
MAX_ACCESS_BOOST = 0.3  # MAX_MULTIPLIER - MIN_MULTIPLIER - FRESH_SHARE: a fresh memory used often reaches 1.5
ACCESS_HISTORY = 20  # the accesses of a memory that count (and that are kept): its newest
DECAY_POOL = 50  # a decayed search ranks at least this many candidates (max(top_k × 3, 50))
SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class DecaySettings:
    """How fast memories age: the deployment's (MNEMO_DECAY_*), the same for every project that turns decay on."""

    half_life_days: float = 365.0
    access_boost: float = 0.1
    access_half_life_days: float = 14.0

    def __post_init__(self) -> None:
        if not (self.half_life_days > 0 and math.isfinite(self.half_life_days)):
            raise ValueError(f"half_life_days must be a positive number of days, not {self.half_life_days}.")
        if not (self.access_half_life_days > 0 and math.isfinite(self.access_half_life_days)):
            raise ValueError(f"access_half_life_days must be a positive number of days: {self.access_half_life_days}.")
        if not 0.0 <= self.access_boost <= MAX_ACCESS_BOOST:
            raise ValueError(f"access_boost must be between 0 and {MAX_ACCESS_BOOST:g}, not {self.access_boost}.")


@dataclass(frozen=True, slots=True)
class Decay:
    """The decay one search applies: the settings, and `at`, the moment ages are counted to (and at which the
    memories it returns are recorded as accessed)."""

    settings: DecaySettings
    at: datetime


def event_time(record: MemoryRecord) -> datetime:
    """When what the memory says was stated: its `created_at` (the event's time: a `timestamp` backdates it), or its
    `updated_at` when it is active and was changed later (an update restates it). A superseded or merged memory
    counts from its `created_at`: retiring it changed it, but said nothing new."""
    if record.state is LifecycleState.ACTIVE and record.updated_at > record.created_at:
        return record.updated_at
    return record.created_at


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from `earlier` to `later`; 0 when `earlier` is not before `later` (a clock skew, a future timestamp)."""
    return max((later - earlier).total_seconds() / SECONDS_PER_DAY, 0.0)


def freshness(age_days: float, half_life_days: float) -> float:
    """0.5 ** (age / half-life): 1 for a memory stated now, 0.5 one half-life later, towards 0 after."""
    return float(0.5 ** (max(age_days, 0.0) / half_life_days))


def access_weight(accesses: Sequence[datetime], at: datetime, access_half_life_days: float) -> float:
    """How much a memory was used lately, in [0, 1): its newest ACCESS_HISTORY accesses, each worth
    0.5 ** (its age / access half-life), summed to S, give 1 − 0.5 ** S."""
    newest = sorted(accesses, reverse=True)[:ACCESS_HISTORY]
    total = sum(freshness(days_between(moment, at), access_half_life_days) for moment in newest)
    return 1.0 - 0.5**total


def multiplier(event_at: datetime, accesses: Sequence[datetime], at: datetime, settings: DecaySettings) -> float:
    """The freshness multiplier of a memory stated at `event_at` and accessed at `accesses`, seen at `at`: within
    [MIN_MULTIPLIER, MAX_MULTIPLIER] whatever the inputs."""
    fresh = freshness(days_between(event_at, at), settings.half_life_days)
    used = access_weight(accesses, at, settings.access_half_life_days) if accesses else 0.0
    value = MIN_MULTIPLIER + fresh * (FRESH_SHARE + settings.access_boost * used)
    return min(max(value, MIN_MULTIPLIER), MAX_MULTIPLIER)


def record_multiplier(record: MemoryRecord, accesses: Sequence[datetime], decay: Decay) -> float:
    """The multiplier of a stored memory (its event time: `event_time`) under one search's decay."""
    return multiplier(event_time(record), accesses, decay.at, decay.settings)
