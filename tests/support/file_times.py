"""The run's time by test file, printed after pytest's 20 slowest tests: where the suite's minutes go, set-ups
(a served platform, a moto stack, the model) included, which the per-test list spreads over many small lines.

Registered in tests/conftest.py. Under xdist the reports reach the controller, which adds them up; the figures are
worker-seconds (two workers make a run's wall time about half their sum)."""

from __future__ import annotations

from collections import defaultdict

import pytest

SHOWN = 15  # files listed

_seconds: defaultdict[str, float] = defaultdict(float)
_tests: defaultdict[str, int] = defaultdict(int)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::", 1)[0]
    _seconds[path] += report.duration
    if report.when == "call":
        _tests[path] += 1


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _seconds:
        return
    total = sum(_seconds.values())
    terminalreporter.write_sep("=", f"slowest {SHOWN} test files (worker-seconds, set-up included)")
    for path, seconds in sorted(_seconds.items(), key=lambda item: -item[1])[:SHOWN]:
        share = 100 * seconds / total if total else 0.0
        terminalreporter.write_line(f"{seconds:8.1f}s {share:5.1f}%  {_tests[path]:5d} tests  {path}")
    terminalreporter.write_line(f"{total:8.1f}s in all, {len(_seconds)} files")
