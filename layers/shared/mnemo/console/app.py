"""The console's app: every section's routes, its static files (stylesheet and one script), the security headers,
and the page answered for an unknown path. The entry point that builds the served app mounts it at /console
(`mount_console`), with the services of that app's container."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from mnemo.console import (
    api_keys,
    dream,
    entities,
    events,
    members,
    memories,
    memory_detail,
    organizations,
    profiles,
    project_settings,
    projects,
    sign_in,
    usage,
    webhook_tools,
    webhooks,
)
from mnemo.console.rendering import render
from mnemo.console.security import SecurityHeaders
from mnemo.console.visits import CONSOLE_STATE, ConsoleServices

if TYPE_CHECKING:
    from mnemo.services.platform.served import ServedServices

PREFIX = "/console"


def create_console(services: ConsoleServices) -> Starlette:
    routes = [
        *sign_in.ROUTES,
        *organizations.ROUTES,
        *projects.ROUTES,
        *api_keys.ROUTES,
        *members.ROUTES,
        *memories.ROUTES,  # before memory_detail: /memories/delete is no memory's id
        *memory_detail.ROUTES,
        *project_settings.ROUTES,
        *entities.ROUTES,
        *events.ROUTES,
        *profiles.ROUTES,
        *dream.ROUTES,
        *webhooks.ROUTES,
        *webhook_tools.ROUTES,
        *usage.ROUTES,
        Mount("/static", StaticFiles(packages=[("mnemo.console", "static")]), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={HTTPException: _http_error},
    )
    setattr(app.state, CONSOLE_STATE, services)
    return app


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    message = "No such page." if status == 404 else "This request cannot be answered."
    return render(request, "error.html", status, message=message)


def console_services(served: ServedServices) -> ConsoleServices:
    """The console's services from the served app's container. THE CONSOLE'S SIGN-IN IS READ HERE, and only here:
    the platform's `console_auth` when the deployment has one; without it every page answers 503."""
    return ConsoleServices(
        platform=lambda: served.platform,
        auth=lambda: getattr(served.platform, "console_auth", None),
    )


def mount_console(app: Starlette, served: ServedServices) -> None:
    """Serve the console at /console of `app`."""
    app.mount(PREFIX, create_console(console_services(served)))
