"""`python -m bench.memory_quality [--surface selfhosted|platform|both|mem0]
[--split eval|tune|dev|holdout|blind|blind2|blind3|blind4] [--json] [--out PATH] [--no-erasure] [--locomo]
[--llm local | --llm-base-url URL [--llm-model NAME]] [--rules-beside]`: the
memory-quality evaluation on the embedded default (no LLM), or with an LLM.

Prints a table of every figure beside its target (and, with --json, the whole record), and writes it with the
failures of each case to bench/results/memory_quality.json (or --out). --locomo also runs the LoCoMo dev retrieval
guard (recall@10 must not fall below 0.738).

With an LLM (--llm local: the benchmarks' local model, bench/llm_local, started unless one already serves; or any
OpenAI-compatible --llm-base-url), mnemo's surfaces use its `openai` provider there and each add's LLM calls, tokens,
seconds and fallbacks are recorded, in bench/results/memory_quality_llm-<split>.json (the surfaces of an earlier run
of the split are kept beside the new ones). `--surface mem0` runs mem0 2.2.1 (`Memory.add(..., infer=True)`, in the
peer venv of bench/peer/setup_mem0_venv.sh) against the same endpoint instead: memory_quality_mem0-<split>.json.
`--rules-beside` runs mnemo with MNEMO_LLM_RULES_BESIDE on (the extractor's statements the LLM's answer left out
stored beside it): memory_quality_llm-rules-<split>.json."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import get_args

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from bench.memory_quality import report
from bench.memory_quality.data import Split
from bench.memory_quality.evaluation import SystemName, run
from bench.memory_quality.llm import Endpoint, merged, record_name
from bench.memory_quality.surfaces import SURFACES


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.memory_quality", description=__doc__)
    parser.add_argument("--surface", choices=[*SURFACES, "both", "mem0"], default="both")
    parser.add_argument(
        "--split",
        choices=list(get_args(Split)),
        default="eval",
        help="tune, dev: conversations to fit rules on; holdout: conversations written apart, measured once at the end",
    )
    parser.add_argument("--json", action="store_true", help="Print the whole record as JSON.")
    parser.add_argument("--out", type=Path, default=None, help="Where to write the record (bench/results/...).")
    parser.add_argument("--no-erasure", action="store_true", help="Skip the erasure cases.")
    parser.add_argument("--locomo", action="store_true", help="Also run the LoCoMo dev recall guard.")
    parser.add_argument(
        "--users", type=int, default=None, help="Only the split's first N users (recorded as <split>-users<N>)."
    )
    llm = parser.add_mutually_exclusive_group()
    llm.add_argument("--llm", choices=["local"], help="The local model of bench/llm_local (started if need be).")
    llm.add_argument("--llm-base-url", help="An OpenAI-compatible endpoint (http://host:port/v1).")
    parser.add_argument("--llm-model", default=None, help="The model to ask for at --llm-base-url.")
    parser.add_argument(
        "--rules-beside",
        action="store_true",
        help="With an LLM: store the extractor's statements its answer left out beside it (llm_rules_beside).",
    )
    args = parser.parse_args(argv)
    if args.rules_beside and (args.surface == "mem0" or not (args.llm or args.llm_base_url)):
        parser.error("--rules-beside is an option of mnemo's LLM path: name an LLM and a mnemo surface")
    if args.surface == "mem0" and not (args.llm or args.llm_base_url):
        parser.error("--surface mem0 needs an LLM: --llm local or --llm-base-url URL")
    return args


def evaluate(args: argparse.Namespace, endpoint: Endpoint | None) -> dict[str, object]:
    surfaces: list[SystemName] = list(SURFACES) if args.surface == "both" else [args.surface]
    return run(args.split, surfaces, erasure=not args.no_erasure, locomo=args.locomo, llm=endpoint, users=args.users)


def with_llm(args: argparse.Namespace) -> dict[str, object]:
    """The run with its LLM: the local model (started for the run unless one serves already) or the given URL."""
    if args.llm_base_url:
        return evaluate(args, Endpoint(args.llm_base_url, args.llm_model or "default", rules_beside=args.rules_beside))
    from bench.llm_local.process import LocalLLM

    with LocalLLM() as server:
        return evaluate(
            args, Endpoint(server.base_url, args.llm_model or server.model_id, rules_beside=args.rules_beside)
        )


def main(argv: list[str] | None = None) -> int:
    from bench.run import RESULTS, machine, record

    args = parse(sys.argv[1:] if argv is None else argv)
    llm = bool(args.llm or args.llm_base_url)
    figures = with_llm(args) if llm else evaluate(args, None)
    print(report.table(figures))
    if args.json:
        print(json.dumps({"machine": machine(), "figures": figures}, indent=2))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": machine(), "figures": figures}, indent=2) + "\n")
        print(f"wrote {args.out}")
        return 0
    split = args.split if args.users is None else f"{args.split}-users{args.users}"
    if llm:
        name = record_name(split, "mem0" if args.surface == "mem0" else "llm-rules" if args.rules_beside else "llm")
        record(name, merged(RESULTS / f"{name}.json", figures))
    else:
        record("memory_quality" if split == "eval" else f"memory_quality-{split}", figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
