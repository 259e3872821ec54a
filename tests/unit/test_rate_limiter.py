"""The token bucket: a burst of `per_minute` calls, then one call per 60/per_minute seconds, per client."""

from __future__ import annotations

import pytest

from mnemo.errors import RateLimitedError
from mnemo.services.rate_limiter import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_client_gets_its_burst_then_waits_for_the_refill() -> None:
    clock = Clock()
    limiter = RateLimiter({"login": 10}, clock)
    for _ in range(10):
        limiter.check("login", "1.2.3.4")
    with pytest.raises(RateLimitedError) as refused:
        limiter.check("login", "1.2.3.4")
    assert refused.value.retry_after == 6  # one call every 6 s
    assert refused.value.message == "Rate limit exceeded: 10 per 1 minute"

    clock.now += 5.9
    with pytest.raises(RateLimitedError) as still:
        limiter.check("login", "1.2.3.4")
    assert still.value.retry_after == 1
    clock.now += 0.1
    limiter.check("login", "1.2.3.4")
    with pytest.raises(RateLimitedError):
        limiter.check("login", "1.2.3.4")


def test_clients_and_routes_have_separate_buckets_and_a_zero_limit_is_off() -> None:
    limiter = RateLimiter({"register": 1, "login": 1, "refresh": 0}, Clock())
    limiter.check("register", "a")
    limiter.check("register", "b")
    limiter.check("login", "a")
    with pytest.raises(RateLimitedError):
        limiter.check("register", "a")
    for _ in range(100):
        limiter.check("refresh", "a")
        limiter.check("unlisted", "a")


def test_a_long_pause_refills_only_up_to_the_burst() -> None:
    clock = Clock()
    limiter = RateLimiter({"login": 3}, clock)
    limiter.check("login", "a")
    clock.now += 3600
    for _ in range(3):
        limiter.check("login", "a")
    with pytest.raises(RateLimitedError):
        limiter.check("login", "a")
