"""The `mnemo` command."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import secrets
import sys
from pathlib import Path
from typing import Any, TextIO

from pydantic import SecretStr

from mnemo.entrypoints.console_cli import USAGE_ERROR, add_set_password, read_password
from mnemo.settings import Settings


def main(argv: list[str] | None = None) -> int:
    # Requests run in parallel threads; BLAS threads on top of them only contend for the same cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser = argparse.ArgumentParser(prog="mnemo", description="Long-term memory for AI agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="Serve the HTTP API on the embedded backends.")
    serve.add_argument(
        "--host",
        help="Address to bind (env MNEMO_HOST, default 127.0.0.1); loopback only when auth is disabled.",
    )
    serve.add_argument("--port", type=int, help="Port (env MNEMO_PORT, default 8000).")
    serve.add_argument(
        "--data-dir", type=Path, help="Where the SQLite file lives (env MNEMO_DATA_DIR, default ./data)."
    )
    serve.add_argument(
        "--workers",
        type=int,
        help="Processes serving the data dir on the port (env MNEMO_HTTP_WORKERS, default 1): more use more cores; "
        "each holds the search index in memory.",
    )
    serve.set_defaults(run=_serve)
    reindex = commands.add_parser(
        "reindex",
        help="Rebuild the search index from the record store (MNEMO_BACKEND: local SQLite, or aws: DynamoDB into "
        "OpenSearch). Locally, stop `mnemo serve` first.",
    )
    reindex.add_argument("--batch-size", type=int, default=500, help="Memories per batch (default 500).")
    reindex.add_argument("--data-dir", type=Path, help="Where the SQLite file lives (local; env MNEMO_DATA_DIR).")
    projects = reindex.add_mutually_exclusive_group()
    projects.add_argument(
        "--project",
        action="append",
        metavar="PROJECT_ID",
        help="Rebuild this platform project's index instead of the self-hosted one (repeatable).",
    )
    projects.add_argument(
        "--all-projects", action="store_true", help="Rebuild the index of every platform project that holds memories."
    )
    reindex.set_defaults(run=_reindex)
    mcp = commands.add_parser(
        "mcp",
        help="Serve the MCP tools over stdio, for desktop agents: on the local data dir, or on a remote mnemo "
        "(env MNEMO_MCP_URL); the key from MNEMO_MCP_API_KEY.",
    )
    mcp.add_argument("--data-dir", type=Path, help="Where the SQLite file lives (env MNEMO_DATA_DIR, default ./data).")
    mcp.add_argument("--url", help="A remote mnemo's base URL (env MNEMO_MCP_URL); its tools' calls go there.")
    mcp.add_argument(
        "--surface",
        choices=["platform", "self-hosted"],
        help="Which API the key opens (default: self-hosted for an m0sk_ key, the platform for any other key).",
    )
    mcp.set_defaults(run=_mcp)
    # ---- platform: start a tenant ----
    platform = commands.add_parser("platform", help="Platform tenancy: organizations, projects, API keys.")
    platform_commands = platform.add_subparsers(dest="platform_command", required=True)
    start = platform_commands.add_parser(
        "bootstrap",
        help="Create a user, an organization, its default project and an API key (printed once).",
        allow_abbrev=False,  # no `--password` read as `--password-stdin`, its value left over
    )
    start.add_argument("--email", required=True, help="The user's email (created when new).")
    start.add_argument("--org", required=True, help="The new organization's name.")
    start.add_argument("--project", default="Default Project", help="The default project's name.")
    start.add_argument("--json", action="store_true", help="Print one JSON object: api_key, org_id, project_id.")
    start.add_argument(
        "--password-stdin",
        action="store_true",
        help="Read the user's console password from standard input (one line), so they can sign in to the web "
        "console; it is never taken as an argument. Without it, set one later with `mnemo platform set-password`.",
    )
    start.add_argument(
        "--data-dir",
        type=Path,
        help="Where the SQLite file lives (env MNEMO_DATA_DIR). With MNEMO_BACKEND=aws the tenant is written to "
        "the stack's accounts table (MNEMO_ACCOUNTS_TABLE) instead.",
    )
    start.set_defaults(run=_platform_bootstrap)
    resume = platform_commands.add_parser(
        "resume",
        help="Queue again the asynchronous adds still PENDING or RUNNING after a while (MNEMO_BACKEND=aws; the "
        "local worker does this itself at start-up).",
    )
    resume.add_argument(
        "--older-than-minutes", type=float, default=15.0, help="Only events unchanged this long (default 15)."
    )
    resume.set_defaults(run=_platform_resume)
    upgrade = platform_commands.add_parser(
        "upgrade",
        help="Bring platform items an earlier version wrote to the current layout (MNEMO_BACKEND=aws; idempotent: "
        "run once after deploying).",
    )
    upgrade.set_defaults(run=_platform_upgrade)
    add_set_password(platform_commands)
    _add_plugin_commands(commands)
    args = parser.parse_args(argv)
    return int(args.run(args))  # every command, its own or a plugin's, sets the function that runs it


def _add_plugin_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Commands other installed distributions add (`mnemo bench` comes from mnemo-bench, in bench/evaluation):
    each entry point of the group `mnemo.commands` is called with the sub-commands; it adds its own and sets
    `run` (the parsed arguments -> an exit code) as that parser's default. One that fails to load is skipped."""
    from importlib.metadata import entry_points

    for entry in entry_points(group="mnemo.commands"):
        try:
            entry.load()(commands)
        except Exception as exc:
            print(f"mnemo: skipping the {entry.name!r} command ({entry.value}): {exc}", file=sys.stderr)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_jwt_secret(path: Path) -> str:
    """The JWT secret kept in the data dir, made on first use: random, readable by its owner only."""
    log = logging.getLogger("mnemo.serve")
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the data dir (the SQLite adapter tightens it)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
            log.warning("%s was readable by others: its mode is now 0600", path)
        secret = path.read_text(encoding="utf-8").strip()
        if secret:
            log.info("JWT_SECRET not set: using the secret kept in %s", path)
            return secret
        path.unlink()
        return local_jwt_secret(path)
    secret = secrets.token_urlsafe(48)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secret + "\n")
    log.warning("JWT_SECRET not set: generated one and kept it in %s (mode 0600)", path)
    return secret


async def limit_request_threads(threads: int) -> None:
    """At most `threads` synchronous endpoints run at once (anyio's default is 40). Each runs in a thread that
    competes for the GIL: on few cores, many more threads than cores cost each request more CPU, not less time."""
    import anyio.to_thread

    anyio.to_thread.current_default_thread_limiter().total_tokens = threads


def _serve(args: argparse.Namespace) -> int:
    overrides: dict[str, Any] = {
        k: v
        for k, v in {
            "host": args.host,
            "port": args.port,
            "data_dir": args.data_dir,
            "http_workers": getattr(args, "workers", None),
        }.items()
        if v is not None
    }
    settings = Settings(**overrides)
    if settings.auth_disabled and not is_loopback(settings.host):
        print(
            f"mnemo: refusing to bind {settings.host}: authentication is disabled (AUTH_DISABLED=true), so the "
            "API serves on the loopback interface only (127.0.0.1, ::1 or localhost). Turn authentication on to "
            "serve other hosts.",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = with_jwt_secret(settings)
    if settings.http_workers > 1:
        # Each worker process builds its own container from the environment (mnemo.entrypoints.http_workers).
        os.environ.update({"MNEMO_DATA_DIR": str(settings.data_dir), "MNEMO_HTTP_WORKERS": str(settings.http_workers)})
        logging.getLogger("mnemo").info(
            "data in %s; serving on http://%s:%d with %d processes",
            settings.database_path,
            settings.host,
            settings.port,
            settings.http_workers,
        )
        from mnemo.entrypoints.http_workers import serve_workers

        return serve_workers(
            settings.host, settings.port, settings.http_workers, settings.log_level, pin=settings.pin_workers
        )
    from mnemo.entrypoints import http_server
    from mnemo.entrypoints.http_workers import serving_app

    app, container = serving_app(settings)
    logging.getLogger("mnemo").info(
        "data in %s; serving on http://%s:%d", settings.database_path, settings.host, settings.port
    )
    try:
        options = {"host": settings.host, "port": settings.port, "log_level": settings.log_level}
        http_server.run(http_server.server_config(app, settings, **options))
    finally:
        container.close()
    return 0


def with_jwt_secret(settings: Settings) -> Settings:
    """The settings with a JWT secret: the configured one, else the one kept in the data dir (made at first use)."""
    if not settings.auth_disabled and settings.secret("jwt_secret") is None:
        return settings.model_copy(update={"jwt_secret": SecretStr(local_jwt_secret(settings.jwt_secret_path))})
    return settings


def _mcp(args: argparse.Namespace) -> int:
    from mnemo.api.mcp_server.gateway import Surface
    from mnemo.entrypoints import mcp_stdio

    overrides = {k: v for k, v in {"data_dir": args.data_dir, "mcp_url": args.url}.items() if v is not None}
    settings = Settings(**overrides)
    # stdout is the protocol's: every log line goes to stderr
    logging.basicConfig(
        level=settings.log_level.upper(), stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per tool call
    return mcp_stdio.run(settings, Surface(args.surface) if args.surface else None)


def _reindex(args: argparse.Namespace) -> int:
    from mnemo.composition.maintenance import reindex
    from mnemo.errors import MnemoError

    if args.batch_size <= 0:
        print("mnemo reindex: --batch-size must be positive.", file=sys.stderr)
        return 2
    settings = Settings(**({"data_dir": args.data_dir} if args.data_dir is not None else {}))
    try:
        if args.project or args.all_projects:
            return _reindex_projects(settings, args)
        report = reindex(settings, batch_size=args.batch_size, progress=ProgressBar(sys.stderr))
    except MnemoError as exc:
        print(f"mnemo reindex: {exc.message}", file=sys.stderr)
        return 1
    entities = "" if report.entities is None else f"; {report.entities} entity counts recomputed"
    print(f"{report.memories} memories indexed ({settings.backend} backend){entities}.")
    return 0


def _reindex_projects(settings: Settings, args: argparse.Namespace) -> int:
    """`mnemo reindex --project ID` / `--all-projects`: each project's index, a progress bar per project."""
    from mnemo.composition.platform_reindex import reindex_projects

    done = reindex_projects(
        settings,
        None if args.all_projects else args.project,
        batch_size=args.batch_size,
        progress=lambda project_id: ProgressBar(sys.stderr, label=project_id),
    )
    for project in done:
        print(f"{project.project_id}: {project.memories} memories indexed.")
    total = sum(p.memories for p in done)
    print(f"{len(done)} project(s) reindexed, {total} memories ({settings.backend} backend).")
    return 0


def _platform_bootstrap(args: argparse.Namespace, session: Any | None = None) -> int:
    """Writes tenancy records only (no namespace is opened, so no embedder is loaded): to the SQLite file of the
    data dir, or with MNEMO_BACKEND=aws to the accounts table (MNEMO_ACCOUNTS_TABLE) of a deployed stack. With
    --password-stdin the password is read, and checked, before anything is written."""
    import json

    from mnemo.composition.platform import open_console_accounts
    from mnemo.errors import MnemoError
    from mnemo.services.platform.tenancy.service import TenancyService

    password = read_password(sys.stdin, "mnemo platform bootstrap") if args.password_stdin else None
    if args.password_stdin and password is None:
        return USAGE_ERROR
    settings = Settings(**({"data_dir": args.data_dir} if args.data_dir is not None else {}))
    try:
        with open_console_accounts(settings, session) as (store, console):
            started = TenancyService(store, lambda _namespace: None).bootstrap(args.email, args.org, args.project)
            if password is not None:
                console.set_password(started.user.email, password)
    except MnemoError as exc:
        print(f"mnemo platform bootstrap: {exc.message}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"api_key": started.api_key, "org_id": started.org.id, "project_id": started.project.id}))
    else:
        print(f"user:         {started.user.email}")
        print(f"organization: {started.org.name} ({started.org.id})")
        print(f"project:      {started.project.name} ({started.project.id})")
        print(f"API key:      {started.api_key}")
        print("The key is shown only now: keep it. Send it as `Authorization: Token <key>`.")
        if password is None:
            print("No console password: set one with `mnemo platform set-password --email ... --password-stdin`.")
    return 0


def _platform_resume(args: argparse.Namespace, session: Any | None = None) -> int:
    """Queues again, on the stack's ingest queue, every add event left unfinished (see requeue_unfinished)."""
    from datetime import timedelta

    from mnemo.adapters.aws.queue import SqsQueue
    from mnemo.composition.aws_session import aws_session
    from mnemo.composition.platform import open_tenancy_store
    from mnemo.services.platform.jobs.queue_messages import queue_enqueuer
    from mnemo.services.platform.jobs.requeue import requeue_unfinished

    settings = Settings()
    if settings.backend != "aws" or not settings.queue_url:
        print(
            "mnemo platform resume: needs MNEMO_BACKEND=aws and the stack's MNEMO_QUEUE_URL; the local worker "
            "queues unfinished adds again itself each time `mnemo serve` starts.",
            file=sys.stderr,
        )
        return 2
    session = session or aws_session(settings.aws_region)
    enqueue = queue_enqueuer(SqsQueue(session.client("sqs"), settings.queue_url))
    with open_tenancy_store(settings, session) as store:
        queued = requeue_unfinished(store, enqueue, timedelta(minutes=args.older_than_minutes))
    for event in queued:
        print(f"queued {event.id} ({event.status.value} since {event.updated_at.isoformat()}) of {event.project_id}")
    print(f"{len(queued)} unfinished add(s) queued again.")
    return 0


def _platform_upgrade(_args: argparse.Namespace, session: Any | None = None) -> int:
    """Runs mnemo.adapters.dynamodb.upgrade on the stack's memories and accounts tables."""
    from mnemo.adapters.dynamodb.upgrade import upgrade_platform_items
    from mnemo.composition.aws_session import aws_session

    settings = Settings()
    if settings.backend != "aws":
        print("mnemo platform upgrade: needs MNEMO_BACKEND=aws (the local store upgrades itself).", file=sys.stderr)
        return 2
    session = session or aws_session(settings.aws_region)
    report = upgrade_platform_items(session.client("dynamodb"), settings.dynamodb_table, settings.accounts_table)
    print(
        f"{report.indexed} project item(s) indexed by namespace, {report.app_counts} app count(s) set, "
        f"{report.event_counts} event count(s) set, {report.markers_moved} unfinished-event marker(s) moved, "
        f"{report.member_pointers} project member(s) given their project pointer."
    )
    return 0


class ProgressBar:
    """A one-line text bar, redrawn in place: `reindex [#########.........] 1500/4500`."""

    def __init__(self, stream: TextIO, *, label: str = "reindex", width: int = 30) -> None:
        self._stream = stream
        self._label = label
        self._width = width

    def __call__(self, done: int, total: int) -> None:
        filled = self._width if total <= 0 else min(self._width, self._width * done // total)
        bar = "#" * filled + "." * (self._width - filled)
        self._stream.write(f"\r{self._label} [{bar}] {done}/{total}")
        if done >= total:
            self._stream.write("\n")
        self._stream.flush()


if __name__ == "__main__":
    raise SystemExit(main())
