"""The FastAPI application of the local process: every router in one app."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import RedirectResponse

import mnemo
from mnemo.api.errors import install_error_handlers
from mnemo.api.request_id import RequestIdMiddleware
from mnemo.api.selfhosted import configure, memories
from mnemo.bootstrap import Container


def create_app(container: Container) -> FastAPI:
    app = FastAPI(
        title="mnemo",
        version=mnemo.__version__,
        description="Long-term memory for AI agents: the self-hosted REST API.",
        redirect_slashes=False,
    )
    app.state.container = container
    app.add_middleware(RequestIdMiddleware)
    install_error_handlers(app)
    app.include_router(memories.router)
    app.include_router(configure.router)

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/docs", status_code=307)

    return app
