"""The benchmark results page of the site is generated from bench/results/*.json by bench/report.py: the committed
page is the one the committed results give, and each section says where its figures come from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bench import report


def test_the_committed_results_page_is_the_one_the_results_give() -> None:
    committed = report.PAGE.read_text(encoding="utf-8")

    assert report.render() == committed, (
        "docs/benchmarks/results.md is not what bench/results/*.json give: write it again with "
        f"`.venv/bin/{report.REFRESH}` (from the repository's root) and commit it"
    )


def test_each_recorded_benchmark_has_a_section_with_its_method_machine_and_table() -> None:
    page = report.render()

    for benchmark in report.BENCHMARKS:
        if report.load(benchmark.name) is None:
            continue
        heading = f"## {benchmark.title}\n\n{benchmark.method}\n\n"
        assert heading in page, benchmark.name
        after = page[page.index(heading) + len(heading) :]
        assert after.startswith(("Recorded ", "Machine, date and commit: not recorded")), benchmark.name
        assert f"- [{benchmark.title}](#" in page  # listed at the top


def test_a_page_of_a_fresh_clone_without_plots_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(report.RESULTS / "engine.json", results / "engine.json")
    monkeypatch.setattr(report, "PLOTS", tmp_path / "plots")

    page = report.render(results)

    assert "Plot not drawn: `make bench` installs matplotlib and draws `plots/search_latency.png`." in page
    assert "## Engine" in page and "## LoCoMo" not in page


def test_a_result_written_by_its_own_script_says_its_machine_was_not_recorded(tmp_path: Path) -> None:
    (tmp_path / "change_rule.json").write_text(
        json.dumps(
            {
                "pairs": 4,
                "changed": 2,
                "chosen": {"threshold": 0.4, "same_slot_threshold": 0.25, "precision": 1.0, "recall": 0.5, "wrong": []},
            }
        )
    )

    page = report.render(tmp_path)

    assert "Machine, date and commit: not recorded (the benchmark's own script wrote this result)." in page
    assert "| chosen | 0.4 | 0.25 | 1.0 | 0.5 | 0 |" in page
