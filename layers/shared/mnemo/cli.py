"""The `mnemo` command."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from pathlib import Path
from typing import Any

from mnemo.settings import Settings


def main(argv: list[str] | None = None) -> int:
    # Requests run in parallel threads; BLAS threads on top of them only contend for the same cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser = argparse.ArgumentParser(prog="mnemo", description="Long-term memory for AI agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="Serve the HTTP API on the embedded backends.")
    serve.add_argument("--host", help="Loopback address to bind (env MNEMO_HOST, default 127.0.0.1).")
    serve.add_argument("--port", type=int, help="Port (env MNEMO_PORT, default 8000).")
    serve.add_argument(
        "--data-dir", type=Path, help="Where the SQLite file lives (env MNEMO_DATA_DIR, default ./data)."
    )
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
        "--peer-runner", type=Path, help="The peer's runner script (default mnemo/evaluation/<peer>_peer.py)."
    )
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "bench":
        return _bench_locomo(args)
    return 2


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _serve(args: argparse.Namespace) -> int:
    overrides: dict[str, Any] = {
        k: v for k, v in {"host": args.host, "port": args.port, "data_dir": args.data_dir}.items() if v is not None
    }
    settings = Settings(**overrides)
    if not is_loopback(settings.host):
        print(
            f"mnemo: refusing to bind {settings.host}: the self-hosted API has no authentication yet, "
            "so it serves on the loopback interface only (127.0.0.1, ::1 or localhost).",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    import uvicorn

    from mnemo.api.app import create_app
    from mnemo.bootstrap import bootstrap

    container = bootstrap(settings)
    logging.getLogger("mnemo").info(
        "data in %s; serving on http://%s:%d", settings.database_path, settings.host, settings.port
    )
    try:
        uvicorn.run(create_app(container), host=settings.host, port=settings.port, log_level=settings.log_level)
    finally:
        container.close()
    return 0


def _bench_locomo(args: argparse.Namespace) -> int:
    import json

    from mnemo.evaluation import locomo

    peer = locomo.PeerSpec(args.peer, args.peer_python, args.peer_runner) if args.peer else None
    try:
        report = locomo.evaluate(args.data, args.k or locomo.DEFAULT_KS, peer=peer, progress=locomo.progress_to_stderr)
    except locomo.EvaluationError as exc:
        print(f"mnemo bench: {exc.message}", file=sys.stderr)
        return 1
    print(json.dumps(report) if args.json else locomo.render(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
