"""Run the benchmarks and record them: `python -m bench.run [--quick] [--only engine,http,http-platform,http-floor,
http-split,model-batching,locomo,locomo-rerank,lambda,webhooks,categories,merge,decay,memory_quality,llm_cost,cost,million]`.

Writes bench/results/<name>.json: the machine, date and commit, the machine's floor measured in the same run (the
model's speed alone, bench/model_speed.py: a result is only comparable with another taken at the same floor), and
every figure. bench/report.py then writes the site's results page from them (docs/benchmarks/results.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def machine() -> dict[str, Any]:
    def read(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip()
        except OSError:
            return ""

    cpu = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    memory_kb = 0
    if Path("/proc/meminfo").exists():
        memory_kb = int(Path("/proc/meminfo").read_text().split()[1])
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(memory_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": read(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


FLOOR_TEXTS = 1_000  # texts of each kind the floor is measured on (a quick run: QUICK_FLOOR_TEXTS)
QUICK_FLOOR_TEXTS = 100


def floor(texts: int) -> dict[str, Any]:
    """The machine's floor now: the default model's CPU ms per text alone, one text per run, on the HTTP benchmark's
    questions and add texts. A floor that cannot be measured says why, and the result is recorded all the same."""
    from bench import model_speed

    try:
        costs = model_speed.model_costs(texts)
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {**costs, "measured": "right after the benchmark, in the same run"}


def record(name: str, figures: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    texts = QUICK_FLOOR_TEXTS if name.endswith("-quick") else FLOOR_TEXTS
    document = {"machine": {**machine(), "floor": floor(texts)}, "figures": figures}
    path.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return path


def run_engine(quick: bool) -> dict[str, Any]:
    from bench import engine, peer

    sizes = (1_000, 2_000, 5_000) if quick else (1_000, 5_000, 10_000, 50_000, 100_000)
    add_size = 2_000 if quick else 10_000
    queries = 100 if quick else 300
    figures = {
        "mnemo": engine.run(sizes=sizes, add_size=add_size, query_count=queries, single_adds=200 if quick else 1_000)
    }
    figures["mem0"] = peer.engine(size=add_size, query_count=queries)
    return figures


def run_http(quick: bool) -> dict[str, Any]:
    from bench import http_load

    return http_load.run(seconds=10 if quick else 60, preload=1_000 if quick else 5_000)


def run_http_platform(quick: bool) -> dict[str, Any]:
    from bench import http_load

    return http_load.run(seconds=10 if quick else 60, preload=1_000 if quick else 5_000, surface="platform")


def run_locomo(quick: bool) -> dict[str, Any]:
    from mnemo_bench import locomo

    data = ROOT.parent / "shared" / "data" / "locomo-dev.json"
    peer = locomo.PeerSpec("mem0", None, None)
    report: dict[str, Any] = locomo.evaluate(data, locomo.DEFAULT_KS, peer=peer, progress=locomo.progress_to_stderr)
    return report


def run_locomo_rerank(_quick: bool) -> dict[str, Any]:
    """`mnemo bench locomo --rerank`: the reranked search at the top level, the hybrid one beside (no peer)."""
    from mnemo_bench import locomo

    data = ROOT.parent / "shared" / "data" / "locomo-dev.json"
    report: dict[str, Any] = locomo.evaluate(data, locomo.DEFAULT_KS, progress=locomo.progress_to_stderr, rerank=True)
    report["load_average"] = list(os.getloadavg())
    return report


def run_http_floor(quick: bool) -> dict[str, Any]:
    from bench import http_floor

    return http_floor.run(seconds=5.0 if quick else 30.0)


def run_model_batching(quick: bool) -> dict[str, Any]:
    from bench import model_batching

    return model_batching.run(count=80 if quick else 800, calibration=40 if quick else 300)


def run_http_split(quick: bool) -> dict[str, Any]:
    from bench import http_split

    return http_split.run(seconds=10 if quick else 30, preload=1_000 if quick else 5_000)


def run_million(quick: bool) -> dict[str, Any]:
    from bench import million

    if quick:
        return million.run(million.QUICK_SIZES, base=2_000, questions=100, recall_queries=50, add_calls=5)
    return million.run(million.FULL_SIZES)


def run_lambda(quick: bool) -> dict[str, Any]:
    from bench import cold_start

    return cold_start.run(repeats=1 if quick else 3)


def run_webhooks(quick: bool) -> dict[str, Any]:
    from bench import webhooks

    return webhooks.run(events=1_000 if quick else 10_000, outage_seconds=20.0 if quick else 300.0)


def run_categories(_quick: bool) -> dict[str, Any]:
    from bench import categories

    return categories.run()


def run_merge(_quick: bool) -> dict[str, Any]:
    from bench import merge_threshold

    return merge_threshold.run()


def run_decay(quick: bool) -> dict[str, Any]:
    from bench import decay

    return decay.run(quick=quick)


def run_memory_quality(_quick: bool) -> dict[str, Any]:
    from bench.memory_quality import evaluation

    return evaluation.run()


def run_llm_cost(_quick: bool) -> dict[str, Any]:
    from bench import llm_cost

    return llm_cost.run()


def run_cost(quick: bool) -> dict[str, Any]:
    from bench import cost

    return cost.run(adds=10 if quick else 100, searches=50 if quick else 500)


def local_llm_notice() -> str:
    """One line on the local LLM of bench/llm_local (`make llm-local`): where it is installed and serves, or what
    is missing and how to install it. Only said: no benchmark here starts it or changes with it."""
    from bench.llm_local.process import LocalLLM, ServerError

    try:
        llm = LocalLLM()
    except ServerError as exc:  # a malformed LLM_PORT, LLM_CONTEXT or LLM_SLOTS
        return f"local LLM: {exc}; the benchmarks run without it"
    status = llm.status()
    if not status.ready:
        return f"local LLM: {status.describe()}; the benchmarks run without it"
    where = "serving" if llm.serving() else "bench.llm_local.LocalLLM serves it"
    return f"local LLM: {status.describe()}; {where} at {llm.base_url}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--quick", action="store_true", help="Small sizes and short runs, for a smoke test.")
    parser.add_argument(
        "--only",
        default="engine,http,http-platform,http-floor,http-split,model-batching,locomo,locomo-rerank,lambda,webhooks,categories,merge,decay,memory_quality,llm_cost,cost,million",
        help="Comma-separated parts to run.",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    print(local_llm_notice(), flush=True)
    parts: dict[str, Callable[[bool], dict[str, Any]]] = {
        "engine": run_engine,
        "million": run_million,
        "http": run_http,
        "http-platform": run_http_platform,
        "http-floor": run_http_floor,
        "http-split": run_http_split,
        "model-batching": run_model_batching,
        "locomo": run_locomo,
        "locomo-rerank": run_locomo_rerank,
        "lambda": run_lambda,
        "webhooks": run_webhooks,
        "categories": run_categories,
        "merge": run_merge,
        "decay": run_decay,
        "memory_quality": run_memory_quality,
        "llm_cost": run_llm_cost,
        "cost": run_cost,
    }
    for name in args.only.split(","):
        figures = parts[name](args.quick)
        record(f"{name}{'-quick' if args.quick else ''}", figures)
    if not args.quick:
        from bench import report

        report.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
