"""Sign-in throttling: after `max_failures` failed sign-ins within a window, for one email or from one client
address, further tries are refused (RateLimitedError, with the seconds until the oldest failure leaves the window)
before any password is checked.

Failures are counted, not calls (unlike mnemo.services.rate_limiter's token bucket, which would also slow a user
who signs in often): a success clears its email's count, never its client's, so signing in to one's own account
does not reset the count of an address trying others. Kept in the process, as the self-hosted rate limits are: a
deployment with several processes lets each count on its own.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from datetime import datetime

from mnemo.errors import RateLimitedError
from mnemo.services.platform.console_accounts.policy import ConsolePolicy

MAX_TRACKED = 10_000  # emails and addresses kept; the least recently failed go first
MAX_CLIENT_LENGTH = 100  # a longer client address is cut to this (it is a key here, nothing more)
MAX_EMAIL_LENGTH = 255  # as is_email allows: a longer "email" is cut, so no key holds more
TOO_MANY = "Too many failed sign-ins. Try again later."


def throttle_keys(email: str, client: str) -> tuple[str, str]:
    return "email:" + email[:MAX_EMAIL_LENGTH], "client:" + client[:MAX_CLIENT_LENGTH]


class SignInThrottle:
    def __init__(self, policy: ConsolePolicy, clock: Callable[[], datetime]) -> None:
        self._max = policy.max_failures
        self._window = policy.failure_window
        self._clock = clock
        self._failures: OrderedDict[str, list[datetime]] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, keys: Iterable[str]) -> None:
        """RateLimitedError when any of these keys has had too many failures within the window."""
        at = self._clock()
        with self._lock:
            waits = [self._wait(key, at) for key in keys]
        longest = max(waits, default=0)
        if longest > 0:
            raise RateLimitedError(TOO_MANY, longest)

    def failed(self, keys: Iterable[str]) -> None:
        at = self._clock()
        with self._lock:
            for key in keys:
                recent = [t for t in self._failures.pop(key, []) if at - t < self._window]
                self._failures[key] = [*recent, at][-self._max :]
            while len(self._failures) > MAX_TRACKED:
                self._failures.popitem(last=False)

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def _wait(self, key: str, at: datetime) -> int:
        """Whole seconds until `key` may try again; 0 when it may now."""
        recent = [t for t in self._failures.get(key, []) if at - t < self._window]
        if len(recent) < self._max:
            return 0
        return max(1, math.ceil((recent[-self._max] + self._window - at).total_seconds()))
