"""mnemo without an LLM, mnemo with one and mem0 with the same one, side by side on each split: the table of
bench/README.md, read from the recorded runs (bench/results/memory_quality-<split>.json,
memory_quality_llm-<split>.json, memory_quality_mem0-<split>.json; memory_quality_llm-rules-<split>.json, mnemo with
the rules' statements beside the LLM's, is a column of its own where it was run).

`python -m bench.memory_quality.comparison [SPLIT ...]` prints it (every split recorded with mem0, by default).
A split missing one of the records shows "–" in that column.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.memory_quality.report import cell, number, path

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
SURFACE_ORDER = ("selfhosted", "platform")  # a split's LLM columns in this order, whichever surface ran first
SPLITS = ("blind4", "blind3", "blind2", "holdout", "blind", "dev", "eval")

Figures = dict[str, Any]
ROWS: tuple[tuple[str, Callable[[Figures], Any]], ...] = (
    ("junk", path("headline.junk_share")),
    ("gold facts stored", path("headline.gold_stored_share")),
    ("current fact top-1", path("headline.current_top1_share")),
    ("outdated above current", path("headline.outdated_above_current_share")),
    ("gold facts stored more than once", path("duplicated_gold_facts")),
    ("active memories", path("junk.memories")),
    ("LLM calls per add", number("llm_cost.per_add.calls")),
    ("input tokens per add", number("llm_cost.per_add.input_tokens")),
    ("output tokens per add", number("llm_cost.per_add.output_tokens")),
    ("seconds per add", number("seconds.add_mean")),
    ("adds that fell back to the rules", path("llm_cost.fallbacks")),
)


def record_path(split: str, kind: str, results: Path = RESULTS) -> Path:
    """kind: "" (no LLM), "llm" (mnemo with the LLM), "llm-rules" (with the rules' statements beside) or "mem0"."""
    name = f"memory_quality-{split}" if not kind else f"memory_quality_{kind}-{split}"
    return results / ("memory_quality.json" if not kind and split == "eval" else f"{name}.json")


def _surfaces(file: Path) -> dict[str, Figures]:
    if not file.exists():
        return {}
    surfaces: dict[str, Figures] = json.loads(file.read_text())["figures"]["surfaces"]
    return surfaces


def columns(split: str, results: Path = RESULTS) -> list[tuple[str, Figures | None]]:
    """The columns of one split: mnemo self-hosted without an LLM, mnemo with it (each surface run), mem0."""
    plain = _surfaces(record_path(split, "", results))
    llm = _surfaces(record_path(split, "llm", results))
    rules = _surfaces(record_path(split, "llm-rules", results))
    mem0 = _surfaces(record_path(split, "mem0", results))
    out: list[tuple[str, Figures | None]] = [("mnemo, no LLM", plain.get("selfhosted"))]
    ordered = sorted(llm.items(), key=lambda item: SURFACE_ORDER.index(item[0]) if item[0] in SURFACE_ORDER else 99)
    out += [(f"mnemo {name}, LLM", figures) for name, figures in ordered] or [("mnemo, LLM", None)]
    out += [(f"mnemo {name}, LLM + rules beside", figures) for name, figures in rules.items()]
    out.append(("mem0, LLM", mem0.get("mem0")))
    return out


def input_ratio(mnemo: Figures | None, mem0: Figures | None) -> str:
    """mnemo's input tokens over mem0's, all adds together."""
    if not mnemo or not mem0 or not mem0["llm_cost"]["input_tokens"]:
        return "–"
    return f"{mnemo['llm_cost']['input_tokens'] / mem0['llm_cost']['input_tokens']:.2f}"


def split_markdown(split: str, results: Path = RESULTS) -> list[str]:
    cols = columns(split, results)
    rows = [f"| {split} | " + " | ".join(label for label, _ in cols) + " |", "|---|" + "---|" * len(cols)]
    for label, read in ROWS:
        rows.append(f"| {label} | " + " | ".join(cell(read(f)) if f else "–" for _, f in cols) + " |")
    mem0 = cols[-1][1]
    ratios = ["", *(input_ratio(f, mem0) for _, f in cols[1:-1]), ""]  # mnemo's columns with an LLM only
    rows.append("| input tokens, mnemo / mem0 | " + " | ".join(ratios) + " |")
    return rows


def markdown(splits: Sequence[str], results: Path = RESULTS) -> list[str]:
    out: list[str] = []
    for split in splits:
        out += [*split_markdown(split, results), ""]
    return out[:-1]


def main(argv: Sequence[str] | None = None) -> int:
    asked = list(sys.argv[1:] if argv is None else argv)
    splits = asked or [s for s in SPLITS if record_path(s, "mem0").exists() or record_path(s, "llm").exists()]
    print("\n".join(markdown(splits)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
