"""The HTTP app of `mnemo serve`: built once in the serving process, or once in each of its worker processes
(`--workers N`: uvicorn starts them and calls `app()` in each; their settings come from the environment the command
set). The processes share the data dir and stay in step through it (mnemo.adapters.sqlite.change_log)."""

from __future__ import annotations

import functools
import logging

from fastapi import FastAPI

from mnemo.composition.container import Container
from mnemo.settings import Settings


def serving_app(settings: Settings) -> tuple[FastAPI, Container]:
    """The app and the container it serves (closed by the caller once the server has stopped)."""
    from mnemo.api.app import create_app
    from mnemo.composition.container import build_container
    from mnemo.entrypoints.cli import limit_request_threads

    container = build_container(settings)
    try:
        app = create_app(
            container, cors_origins=settings.cors_allowed_origins, mcp_default_user_id=settings.mcp_default_user_id
        )
    except BaseException:
        container.close()
        raise
    app.router.on_startup.append(functools.partial(limit_request_threads, settings.http_threads))
    return app, container


def app() -> FastAPI:
    """A worker process's app: its container closes when the worker shuts down (the index writes its snapshot)."""
    from mnemo.entrypoints.cli import with_jwt_secret

    settings = with_jwt_secret(Settings())
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    served, container = serving_app(settings)
    served.router.on_shutdown.append(container.close)
    return served
