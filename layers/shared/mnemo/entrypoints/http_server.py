"""How `mnemo serve` runs uvicorn: one configuration for the single process and for each worker process, so that
every one has the bounds of its edge (mnemo.entrypoints.http_edge) from the settings.

The connection bound is the setting `http_max_connections`, and at most half the process's open-file limit: each
connection holds a file descriptor, and the other half is left to the process's own files and to the connections
being refused meanwhile (each still holds one until it is closed). A process at its file limit could no longer
accept a connection to refuse it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

from mnemo.entrypoints.http_edge import EdgeConfig, EdgeLimits
from mnemo.settings.server import ServerSettings


def open_file_limit() -> int | None:
    """The process's soft limit on open files; None when it has none (or the platform does not say)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on a POSIX system
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def edge_limits(settings: ServerSettings, file_limit: int | None) -> EdgeLimits:
    """The edge's bounds from the settings; the connections also bounded by half of `file_limit`."""
    connections = settings.http_max_connections
    if file_limit is not None:
        connections = max(1, min(connections, file_limit // 2))
    return EdgeLimits(
        max_request_line_bytes=settings.http_max_request_line_bytes,
        max_header_bytes=settings.http_max_header_bytes,
        max_headers_bytes=settings.http_max_headers_bytes,
        head_timeout_seconds=settings.http_head_timeout_seconds,
        max_connections=connections,
    )


def server_config(app: Any, settings: ServerSettings, **options: Any) -> EdgeConfig:
    """uvicorn's configuration of `app` (an app, or an import string with `factory=True`) for these settings;
    `options` are uvicorn's others (host, port, log_level, ...)."""
    return EdgeConfig(
        app,
        limits=edge_limits(settings, open_file_limit()),
        timeout_keep_alive=settings.http_keep_alive_seconds,
        **options,
    )


def run(config: uvicorn.Config) -> None:
    """Serve until stopped, as `uvicorn.run` does in one process: it exits with uvicorn's status when the server did
    not start (its port taken, say)."""
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn handles the signal itself; as uvicorn.run does
        server.run()
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)
