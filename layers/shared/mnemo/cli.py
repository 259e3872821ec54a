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
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
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


if __name__ == "__main__":
    raise SystemExit(main())
