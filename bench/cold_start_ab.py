"""Lambda cold start, before and after: the HTTP functions of a baseline commit and of the working tree, probed
alternately on the same machine, with the same third-party layer, as bench/cold_start.py probes them (`python -S`,
import + warm() against moto on loopback, tracing on).

Why: this machine is shared, and its speed moves by half between runs of the same code, CPU seconds included
(the host's, not the load's). Absolute figures taken on different days do not compare; alternating the two
trees, round after round, does. The ratio after/before, applied to the baseline's figure recorded on a quiet day
(bench/results/lambda.json at that commit), says what the working tree would have measured that day.

    PYTHONPATH=. .venv/bin/python -m bench.cold_start_ab [--baseline 09fde10] [--rounds 5]

Each tree's `mnemo` is its layers/shared source, compiled first (as the layer ships it); the third-party packages
are the working tree's layer (`make sam-build`, or the layer bench/cold_start.py builds). Writes
bench/results/lambda-ab.json."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.cold_start import FUNCTIONS, ROOT, aws_on_loopback, deployed_code, probe_once

HTTP_FUNCTIONS = ("admin", "auth", "configure", "mcp", "memories", "platform")  # those of the baseline's day
OUT = ROOT / "bench" / "results" / "lambda-ab.json"
WORKTREES = ROOT / "bench" / ".work" / "ab"


def baseline_tree(commit: str) -> Path:
    """A detached worktree of the commit, made once."""
    tree = WORKTREES / commit
    if not (tree / "layers").is_dir():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(tree), commit], check=True)
    return tree


def recorded(commit: str) -> dict[str, float]:
    """The ready seconds bench/results/lambda.json held at the commit."""
    text = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:bench/results/lambda.json"],
        check=False,
        capture_output=True,
        text=True,
    ).stdout
    functions = json.loads(text)["figures"]["functions"] if text else {}
    return {name: figures["ready_seconds_median"] for name, figures in functions.items()}


def probe(tree: Path, name: str, third_party: Path, aws_env: dict[str, str]) -> dict[str, Any]:
    code = tree / "functions" / name
    return probe_once(name, code, [code, tree / "layers" / "shared", third_party], aws_env)


def compiled(tree: Path) -> None:
    """The tree's package compiled to bytecode, as the layer deploys it (layers/shared/Makefile): a probe must not
    compile the modules it imports, and a first run writes nothing where PYTHONDONTWRITEBYTECODE is set. Timestamp
    .pyc files, which a later edit of the source invalidates."""
    package = tree / "layers" / "shared" / "mnemo"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def median(probes: list[dict[str, Any]], figure: str) -> float:
    return float(statistics.median(p[figure] for p in probes))


def run(baseline: str, rounds: int) -> dict[str, Any]:
    before_tree = baseline_tree(baseline)
    for tree in (before_tree, ROOT):
        compiled(tree)
    _code, third_party, source = deployed_code(FUNCTIONS / "memories" / "app.py")
    reference = recorded(baseline)
    server, aws_env = aws_on_loopback()
    load = os.getloadavg()
    functions: dict[str, Any] = {}
    try:
        for name in HTTP_FUNCTIONS:
            for tree in (before_tree, ROOT):  # a first run of each, not timed
                probe(tree, name, third_party, aws_env)
            before, after = [], []
            for _ in range(rounds):
                before.append(probe(before_tree, name, third_party, aws_env))
                after.append(probe(ROOT, name, third_party, aws_env))
            ratio = median(after, "seconds") / median(before, "seconds")
            functions[name] = {
                "before_ready_s": round(median(before, "seconds"), 3),
                "after_ready_s": round(median(after, "seconds"), 3),
                "after_over_before": round(ratio, 3),
                "cpu_after_over_before": round(median(after, "cpu_seconds") / median(before, "cpu_seconds"), 3),
                "baseline_recorded_ready_s": reference.get(name),
                "after_on_the_baseline_day_s": round(ratio * reference[name], 3) if name in reference else None,
            }
            print(name, functions[name], flush=True)
    finally:
        server.stop()
    return {
        "what": (
            f"bench/cold_start.py's probe for each HTTP function, the package at {baseline} (before) and the "
            f"working tree (after) alternated, {rounds} rounds, medians; third-party packages from {source}"
        ),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=True, capture_output=True, text=True
        ).stdout.strip(),
        "load_average": {"start": [round(x, 1) for x in load], "end": [round(x, 1) for x in os.getloadavg()]},
        "functions": functions,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cold_start_ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="09fde10", help="the commit whose recorded figures are the reference")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    results = run(args.baseline, args.rounds)
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
