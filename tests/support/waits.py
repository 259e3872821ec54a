"""How long the tests wait, in one place: every deadline, timeout and join of a test scales by one factor.

A test's wait is an upper bound, never a measurement: on a quiet machine it is never reached, and on a busy one (both
cores taken by other work, or by the other xdist workers) the thing waited for is only slower, not wrong. So each
bound is written once as what a quiet machine needs and multiplied here by `time_scale()`: the environment variable
MNEMO_TEST_TIME_SCALE when set, otherwise a default that lets a busy two-core machine pass, raised further when the
machine is already loaded as the session starts (the load average per core). A larger factor only makes a failing
test take longer to say so; it never hides one.

What does not belong here: a sleep or timeout that is the behaviour under test (a debounce, a provider's own timeout,
a TTL). Those stay as written, since scaling them would change what the test checks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

import httpx

SCALE_VARIABLE = "MNEMO_TEST_TIME_SCALE"
DEFAULT_SCALE = 3.0  # a quiet machine's bounds, tripled: what a two-core machine with both cores busy needs
MAX_LOAD_FACTOR = 4.0  # however loaded the machine looks, the default is raised at most this many times

T = TypeVar("T")


def load_per_core() -> float:
    """The one-minute load average per core (0 where the platform has none)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0
    return load / (os.cpu_count() or 1)


def time_scale(environ: Mapping[str, str] | None = None, load: float | None = None) -> float:
    """The factor every wait of the tests is multiplied by: MNEMO_TEST_TIME_SCALE if set (a positive number),
    otherwise DEFAULT_SCALE times the machine's load per core when that is above one (at most MAX_LOAD_FACTOR)."""
    values = os.environ if environ is None else environ
    given = values.get(SCALE_VARIABLE, "").strip()
    if given:
        try:
            scale = float(given)
        except ValueError:
            raise ValueError(f"{SCALE_VARIABLE} must be a positive number, not {given!r}") from None
        if not scale > 0:
            raise ValueError(f"{SCALE_VARIABLE} must be a positive number, not {given!r}")
        return scale
    per_core = load_per_core() if load is None else load
    return DEFAULT_SCALE * min(max(per_core, 1.0), MAX_LOAD_FACTOR)


SCALE = time_scale()


def seconds(base: float) -> float:
    """A wait of `base` seconds on a quiet machine, scaled for this one."""
    return base * SCALE


# The timeout of every HTTP call a test makes to a server of its own (connect, read, write and pool alike).
HTTP_TIMEOUT = httpx.Timeout(seconds(30.0))
# The same for an HTTP call that does a whole batch of work before it answers (an import, an export, a run).
LONG_HTTP_TIMEOUT = httpx.Timeout(seconds(120.0))


def wait_until(
    predicate: Callable[[], T],
    *,
    timeout: float = 10.0,
    interval: float = 0.05,
    message: str | Callable[[], str] = "the condition did not hold in time",
) -> T:
    """Poll `predicate` every `interval` seconds until it returns something true, and return that; fail with an
    AssertionError carrying `message` (or what it returns) once `seconds(timeout)` have passed. `timeout` is the
    quiet machine's bound: it is scaled here, the interval is not."""
    deadline = time.monotonic() + seconds(timeout)
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(message() if callable(message) else message)
        time.sleep(interval)
