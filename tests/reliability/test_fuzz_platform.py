"""The platform surface fuzzed by a project's OWNER and READER keys (tests/reliability/fuzzing.py says how)."""

from __future__ import annotations

from typing import Any

import schemathesis

from tests.reliability.fuzzing import PLATFORM, Served, callers_outlived, fuzz, served

__all__ = ["served"]  # the module's fixture: one served app for the file

CALLERS = ("owner", "reader")


@PLATFORM.parametrize()
def test_fuzz_platform(case: schemathesis.Case[Any], served: Served) -> None:
    fuzz(case, served, CALLERS)


def test_the_callers_outlived_the_fuzzing(served: Served) -> None:
    callers_outlived(served, CALLERS)
