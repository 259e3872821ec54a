"""The tests' one place for waits (tests/support/waits.py): the scale factor and the polling helper."""

from __future__ import annotations

import itertools

import pytest

from tests.support import waits
from tests.support.waits import DEFAULT_SCALE, MAX_LOAD_FACTOR, SCALE_VARIABLE, time_scale, wait_until


def test_given_the_variable_set_when_the_scale_is_read_then_it_is_the_variable() -> None:
    assert time_scale({SCALE_VARIABLE: "2.5"}, load=9.0) == 2.5


def test_given_no_variable_on_a_quiet_machine_then_the_scale_is_the_default() -> None:
    assert time_scale({}, load=0.2) == DEFAULT_SCALE


def test_given_no_variable_on_a_loaded_machine_then_the_scale_grows_with_the_load_up_to_a_bound() -> None:
    assert time_scale({}, load=2.0) == DEFAULT_SCALE * 2
    assert time_scale({}, load=50.0) == DEFAULT_SCALE * MAX_LOAD_FACTOR


@pytest.mark.parametrize("given", ["0", "-1", "soon", "nan"])
def test_given_a_variable_that_is_no_positive_number_then_reading_the_scale_says_so(given: str) -> None:
    with pytest.raises(ValueError, match=SCALE_VARIABLE):
        time_scale({SCALE_VARIABLE: given})


def test_seconds_and_the_http_timeout_scale_by_the_session_factor() -> None:
    assert waits.seconds(4) == 4 * waits.SCALE
    assert waits.HTTP_TIMEOUT.read == waits.seconds(30)
    assert waits.HTTP_TIMEOUT.connect == waits.seconds(30)


def test_given_a_condition_that_comes_true_then_wait_until_returns_its_value() -> None:
    calls = itertools.count(1)

    got = wait_until(lambda: next(calls) >= 3 and "ready", interval=0)

    assert got == "ready"


def test_given_a_condition_that_never_holds_then_wait_until_fails_with_the_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(waits, "SCALE", 1.0)

    with pytest.raises(AssertionError, match="still pending: 7"):
        wait_until(lambda: False, timeout=0.05, interval=0.01, message=lambda: "still pending: 7")
