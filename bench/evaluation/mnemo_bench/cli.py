"""`mnemo bench`: the offline benchmarks, added to the `mnemo` command as a plugin.

mnemo's command line calls `register` for the entry point `bench` of the group `mnemo.commands` (declared in
this distribution's pyproject.toml); the runtime package never imports mnemo_bench.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds `bench locomo` to the `mnemo` command's sub-commands."""
    bench = commands.add_parser("bench", help="Offline benchmarks.")
    benchmarks = bench.add_subparsers(dest="benchmark", required=True)
    locomo = benchmarks.add_parser(
        "locomo", help="Retrieval recall@k on a LoCoMo-format file: semantic-only, hybrid, and optionally a peer."
    )
    locomo.add_argument("--data", type=Path, required=True, help="The LoCoMo-format JSON file.")
    locomo.add_argument(
        "--k", type=int, nargs="+", action="extend", metavar="K", help="Cut-offs for recall@k (default 1 5 10)."
    )
    locomo.add_argument("--json", action="store_true", help="Print one JSON object instead of a table.")
    locomo.add_argument("--peer", choices=["mem0"], help="Also run a peer system on the same turns and questions.")
    locomo.add_argument(
        "--peer-python",
        type=Path,
        help="The peer virtualenv's python (default bench/.work/mem0-venv/bin/python; create it with "
        "bench/peer/setup_mem0_venv.sh).",
    )
    locomo.add_argument(
        "--peer-runner",
        type=Path,
        help="The peer's runner script (default mnemo_bench/<peer>_peer.py, in bench/evaluation).",
    )
    locomo.add_argument(
        "--decay",
        action="store_true",
        help="Also ask with memory decay (as a project with `decay` on ranks v3 search), each question seen at the "
        "end of its conversation.",
    )
    locomo.add_argument(
        "--decay-half-life", type=float, metavar="DAYS", help="Decay's half-life (implies --decay; default 365)."
    )
    locomo.add_argument(
        "--rerank",
        action="store_true",
        help="Measure the reranked search (`rerank=true`) at the top level, the hybrid search without it beside.",
    )
    locomo.set_defaults(run=_bench_locomo)


def _bench_locomo(args: argparse.Namespace) -> int:
    from mnemo.services.decay import DecaySettings
    from mnemo_bench import locomo

    peer = locomo.PeerSpec(args.peer, args.peer_python, args.peer_runner) if args.peer else None
    decay = None
    if args.decay or args.decay_half_life is not None:
        decay = DecaySettings() if args.decay_half_life is None else DecaySettings(half_life_days=args.decay_half_life)
    try:
        report = locomo.evaluate(
            args.data,
            args.k or locomo.DEFAULT_KS,
            peer=peer,
            progress=locomo.progress_to_stderr,
            decay=decay,
            rerank=args.rerank,
        )
    except locomo.EvaluationError as exc:
        print(f"mnemo bench: {exc.message}", file=sys.stderr)
        return 1
    print(json.dumps(report) if args.json else locomo.render(report))
    return 0
