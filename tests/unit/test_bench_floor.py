"""`bench.run` records the machine's floor — the model's speed alone, measured in the same run — in every result's
`machine` block, and the results page shows it (or says it was not recorded)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench import model_speed, report, run

SPEED = {"texts_each": 100, "tokens_mean": {"question": 9.6, "add_text": 19.5}, "question_ms": 1.3, "add_text_ms": 2.4}


def _measured(counts: list[int]) -> Any:
    def model_costs(count: int = 2_000) -> dict[str, Any]:
        counts.append(count)
        return {**SPEED, "texts_each": count}

    return model_costs


def test_every_recorded_result_carries_the_floor_measured_in_the_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    counts: list[int] = []
    monkeypatch.setattr(run, "RESULTS", tmp_path)
    monkeypatch.setattr(model_speed, "model_costs", _measured(counts))

    path = run.record("merge", {"pairs": 369})
    quick = run.record("merge-quick", {"pairs": 369})

    recorded = json.loads(path.read_text())
    assert recorded["figures"] == {"pairs": 369}
    assert recorded["machine"]["floor"]["question_ms"] == 1.3
    assert recorded["machine"]["floor"]["add_text_ms"] == 2.4
    assert recorded["machine"]["floor"]["measured"] == "right after the benchmark, in the same run"
    assert {"commit", "date", "cores"} <= set(recorded["machine"])
    assert json.loads(quick.read_text())["machine"]["floor"]["texts_each"] == run.QUICK_FLOOR_TEXTS
    assert counts == [run.FLOOR_TEXTS, run.QUICK_FLOOR_TEXTS]


def test_a_floor_that_cannot_be_measured_says_why_and_the_result_is_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(count: int = 2_000) -> dict[str, Any]:
        raise OSError("the model's cache is not writable")

    monkeypatch.setattr(run, "RESULTS", tmp_path)
    monkeypatch.setattr(model_speed, "model_costs", broken)

    recorded = json.loads(run.record("topics", {"pairs": 744}).read_text())

    assert recorded["figures"] == {"pairs": 744}
    assert recorded["machine"]["floor"] == {"error": "OSError: the model's cache is not writable"}


def test_the_results_page_shows_the_floor_or_says_it_was_not_recorded() -> None:
    machine = {"date": "2026-11-29T08:00:00+00:00", "commit": "abc1234", "cores": 2, "cpu": "AMD EPYC"}

    measured = report.floor_line({"machine": {**machine, "floor": SPEED}, "figures": {}})
    failed = report.floor_line({"machine": {**machine, "floor": {"error": "OSError: no"}}, "figures": {}})
    older = report.floor_line({"machine": machine, "figures": {}})
    http = report.floor_line({"machine": machine, "figures": {"model_alone_ms": {"before": SPEED, "after": SPEED}}})

    assert measured is not None and "a question 1.3, an add's text 2.4" in measured
    assert failed == "The machine's floor in this run: not measured (OSError: no)."
    assert older is not None and older.endswith("not recorded.")
    assert http is None  # the HTTP table says it already, before and after the load
