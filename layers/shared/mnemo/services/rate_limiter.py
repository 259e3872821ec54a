"""An in-process token bucket per (route, client): `per_minute` calls at once, refilled evenly over a minute."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping

from mnemo.errors import RateLimitedError

MAX_TRACKED = 10_000  # buckets kept; the least recently used go first (a forgotten bucket is a full one)


class RateLimiter:
    def __init__(self, per_minute: Mapping[str, int], clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = dict(per_minute)
        self._clock = clock
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()  # tokens, as of when
        self._lock = threading.Lock()

    def check(self, route: str, client: str) -> None:
        """Take one token from the bucket of (route, client), or raise RateLimitedError with Retry-After."""
        limit = self._limits.get(route, 0)
        if limit <= 0:
            return
        rate = limit / 60.0
        key = (route, client)
        at = self._clock()
        with self._lock:
            tokens, then = self._buckets.pop(key, (float(limit), at))
            tokens = min(float(limit), tokens + (at - then) * rate)
            if tokens < 1.0:
                self._remember(key, tokens, at)
                retry_after = max(1, math.ceil((1.0 - tokens) / rate))
                raise RateLimitedError(f"Rate limit exceeded: {limit} per 1 minute", retry_after)
            self._remember(key, tokens - 1.0, at)

    def _remember(self, key: tuple[str, str], tokens: float, at: float) -> None:
        self._buckets[key] = (tokens, at)
        while len(self._buckets) > MAX_TRACKED:
            self._buckets.popitem(last=False)
