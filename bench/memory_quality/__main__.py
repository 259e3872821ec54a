"""`python -m bench.memory_quality [--surface selfhosted|platform|both] [--split eval|tune|dev|holdout|blind] [--json]
[--out PATH] [--no-erasure] [--locomo]`: the memory-quality evaluation of issue 16 on the embedded default (no LLM).

Prints a table of every figure beside its target (and, with --json, the whole record), and writes it with the
failures of each case to bench/results/memory_quality.json (or --out). --locomo also runs the LoCoMo dev retrieval
guard (recall@10 must not fall below 0.738)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from bench.memory_quality import report
from bench.memory_quality.evaluation import run
from bench.memory_quality.surfaces import SURFACES, SurfaceName


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.memory_quality", description=__doc__)
    parser.add_argument("--surface", choices=[*SURFACES, "both"], default="both")
    parser.add_argument(
        "--split",
        choices=["eval", "tune", "dev", "holdout", "blind", "blind2"],
        default="eval",
        help="tune, dev: conversations to fit rules on; holdout: conversations written apart, measured once at the end",
    )
    parser.add_argument("--json", action="store_true", help="Print the whole record as JSON.")
    parser.add_argument("--out", type=Path, default=None, help="Where to write the record (bench/results/...).")
    parser.add_argument("--no-erasure", action="store_true", help="Skip the erasure cases.")
    parser.add_argument("--locomo", action="store_true", help="Also run the LoCoMo dev recall guard.")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    from bench.run import machine, record

    args = parse(sys.argv[1:] if argv is None else argv)
    surfaces: list[SurfaceName] = list(SURFACES) if args.surface == "both" else [args.surface]
    figures = run(args.split, surfaces, erasure=not args.no_erasure, locomo=args.locomo)
    print(report.table(figures))
    if args.json:
        print(json.dumps({"machine": machine(), "figures": figures}, indent=2))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": machine(), "figures": figures}, indent=2) + "\n")
        print(f"wrote {args.out}")
    else:
        record("memory_quality" if args.split == "eval" else f"memory_quality-{args.split}", figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
