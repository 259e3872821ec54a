"""Sign-in throttling: five failures within fifteen minutes, for one email or from one client address, and the
next try is refused with the seconds to wait, before any password is checked."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from mnemo.errors import AuthenticationError, RateLimitedError
from mnemo.services.platform.console_accounts.policy import ConsolePolicy
from mnemo.services.platform.console_accounts.throttle import SignInThrottle, throttle_keys
from tests.unit.console_support import CLIENT, PASSWORD, Clock, World, world


@pytest.fixture
def w(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as built:
        yield built


def fail(w: World, email: str, client: str, times: int) -> None:
    for _ in range(times):
        with pytest.raises(AuthenticationError):
            w.console.sign_in(email, "wrong password!!", client)


def test_the_sixth_try_for_an_email_is_refused_even_with_the_right_password(w: World) -> None:
    fail(w, w.owner.email, CLIENT, 5)
    w.clock.advance(minutes=5)
    with pytest.raises(RateLimitedError) as refused:
        w.console.sign_in(w.owner.email, PASSWORD, "198.51.100.9")  # another address: the email's count
    assert refused.value.retry_after == 10 * 60


def test_the_window_passes_and_the_user_signs_in(w: World) -> None:
    fail(w, w.owner.email, CLIENT, 5)
    w.clock.advance(minutes=15)
    assert w.console.sign_in(w.owner.email, PASSWORD, CLIENT).user == w.owner


def test_one_address_trying_many_emails_is_stopped(w: World) -> None:
    for n in range(5):
        fail(w, f"someone{n}@example.com", CLIENT, 1)
    with pytest.raises(RateLimitedError):
        w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    assert w.console.sign_in(w.owner.email, PASSWORD, "198.51.100.9").user == w.owner


def test_a_success_clears_its_emails_count_but_not_its_addresss(w: World) -> None:
    fail(w, w.owner.email, CLIENT, 4)
    w.console.sign_in(w.owner.email, PASSWORD, "198.51.100.9")
    fail(w, w.owner.email, "192.0.2.1", 4)  # the email starts again: four more are let through
    fail(w, "other@example.com", CLIENT, 1)  # the first address reaches five
    with pytest.raises(RateLimitedError):
        w.console.sign_in("third@example.com", "whatever it is", CLIENT)


def test_the_limits_come_from_the_policy() -> None:
    clock = Clock()
    throttle = SignInThrottle(ConsolePolicy(max_failures=2, failure_window=timedelta(minutes=1)), clock)
    keys = throttle_keys("a@example.com", CLIENT)
    throttle.failed(keys)
    throttle.check(keys)
    clock.advance(seconds=30)
    throttle.failed(keys)
    with pytest.raises(RateLimitedError) as refused:
        throttle.check(keys)
    assert refused.value.retry_after == 30  # the first failure leaves the window then
    clock.advance(seconds=30)
    throttle.check(keys)


def test_what_the_throttle_keeps_of_an_email_or_address_is_bounded() -> None:
    email_key, client_key = throttle_keys("a" * 100_000, "b" * 100_000)
    assert len(email_key) < 300 and len(client_key) < 200
