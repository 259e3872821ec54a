"""bench/memory_quality/comparison.py: the README's table of mnemo without an LLM, mnemo with one and mem0 with the
same one, read from the recorded runs of a split."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.memory_quality.comparison import markdown, record_path


def surface(junk: float, gold: float, calls: float | None, input_tokens: int = 0) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "headline": {
            "junk_share": junk,
            "gold_stored_share": gold,
            "current_top1_share": 1.0,
            "outdated_above_current_share": 0.0,
        },
        "duplicated_gold_facts": 1,
        "junk": {"memories": 20},
        "seconds": {"add_mean": 3.25},
    }
    if calls is not None:
        figures["llm_cost"] = {
            "per_add": {"calls": calls, "input_tokens": 1234.5, "output_tokens": 60.0},
            "fallbacks": 0,
            "input_tokens": input_tokens,
        }
    return figures


def write(results: Path, split: str, kind: str, surfaces: dict[str, Any]) -> None:
    record_path(split, kind, results).write_text(json.dumps({"figures": {"surfaces": surfaces}}))


def test_each_split_gets_one_column_per_system_and_the_input_token_ratio(tmp_path: Path) -> None:
    # Given the three records of a split
    write(tmp_path, "blind2", "", {"selfhosted": surface(0.04, 0.9, None), "platform": surface(0.5, 0.5, None)})
    write(tmp_path, "blind2", "llm", {"selfhosted": surface(0.1, 0.8, 2.0, input_tokens=1000)})
    write(tmp_path, "blind2", "mem0", {"mem0": surface(0.3, 0.6, 2.0, input_tokens=4000)})

    # When the table is made
    table = markdown(["blind2"], tmp_path)

    # Then each system has a column, with its figures, and mnemo's input tokens are set against mem0's
    assert table[0] == "| blind2 | mnemo, no LLM | mnemo selfhosted, LLM | mem0, LLM |"
    assert "| junk | 4% | 10% | 30% |" in table
    assert "| gold facts stored | 90% | 80% | 60% |" in table
    assert "| LLM calls per add | – | 2 | 2 |" in table
    assert "| input tokens per add | – | 1,234.5 | 1,234.5 |" in table
    assert "| seconds per add | 3.2 | 3.2 | 3.2 |" in table
    assert table[-1] == "| input tokens, mnemo / mem0 |  | 0.25 |  |"


def test_a_split_not_yet_run_with_an_llm_shows_dashes(tmp_path: Path) -> None:
    write(tmp_path, "holdout", "", {"selfhosted": surface(0.04, 0.9, None)})

    table = markdown(["holdout"], tmp_path)

    assert table[0] == "| holdout | mnemo, no LLM | mnemo, LLM | mem0, LLM |"
    assert "| junk | 4% | – | – |" in table
    assert table[-1] == "| input tokens, mnemo / mem0 |  | – |  |"


def test_the_eval_split_without_an_llm_is_the_historic_record() -> None:
    assert record_path("eval", "").name == "memory_quality.json"
    assert record_path("eval", "llm").name == "memory_quality_llm-eval.json"
    assert record_path("dev", "").name == "memory_quality-dev.json"


def test_the_self_hosted_column_comes_before_the_platform_whichever_ran_first(tmp_path: Path) -> None:
    write(tmp_path, "blind3", "", {"selfhosted": surface(0.04, 0.9, None)})
    write(tmp_path, "blind3", "llm", {"platform": surface(0.2, 0.6, 1.5), "selfhosted": surface(0.1, 0.8, 1.5)})

    table = markdown(["blind3"], tmp_path)

    assert table[0] == "| blind3 | mnemo, no LLM | mnemo selfhosted, LLM | mnemo platform, LLM | mem0, LLM |"
    assert "| junk | 4% | 10% | 20% | – |" in table


def test_a_run_with_the_rules_beside_the_llm_is_a_column_of_its_own(tmp_path: Path) -> None:
    write(tmp_path, "blind", "", {"selfhosted": surface(0.04, 0.9, None)})
    write(tmp_path, "blind", "llm", {"selfhosted": surface(0.1, 0.5, 1.5, input_tokens=1000)})
    write(tmp_path, "blind", "llm-rules", {"selfhosted": surface(0.1, 0.8, 1.5, input_tokens=1100)})
    write(tmp_path, "blind", "mem0", {"mem0": surface(0.3, 0.6, 1.0, input_tokens=10000)})

    table = markdown(["blind"], tmp_path)

    assert table[0] == (
        "| blind | mnemo, no LLM | mnemo selfhosted, LLM | mnemo selfhosted, LLM + rules beside | mem0, LLM |"
    )
    assert "| gold facts stored | 90% | 50% | 80% | 60% |" in table
    assert table[-1] == "| input tokens, mnemo / mem0 |  | 0.10 | 0.11 |  |"
