"""The FastAPI application: every router in one app for the local process, or one route group per Lambda
function (functions/<group>/app.py). Every app's explorer (/docs, /redoc: api/explorer.py) describes the whole
API, and answers CORS for the origins it is given. An app imports the routers of its own groups only
(api/route_groups.py); the whole API's description imports the others on its first call."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.routing import APIRoute

import mnemo
from mnemo.api import explorer
from mnemo.api.body_guard import BodyGuardMiddleware
from mnemo.api.cors import AllowedOriginsCors
from mnemo.api.dependencies import SERVICES_STATE
from mnemo.api.errors import install_error_handlers
from mnemo.api.inline_work import InlineWorkMiddleware, runs_in_process
from mnemo.api.lazy_routers import LazyRouters, LoadRoutersMiddleware
from mnemo.api.mcp_server.app_state import DEFAULT_USER_ID, DEFAULT_USER_STATE
from mnemo.api.request_id import RequestIdMiddleware
from mnemo.api.request_log_middleware import RequestLogMiddleware
from mnemo.api.route_groups import GROUP_ROUTERS, load_routers

if TYPE_CHECKING:
    from mnemo.services.platform.served import ServedServices

__all__ = ["GROUP_ROUTERS", "api_routes", "create_app", "whole_api_description"]

TITLE = "mnemo"
EXPLORER = "mnemo.api.explorer:router"
DESCRIPTION = "Long-term memory for AI agents: the self-hosted REST API."


def create_app(
    services: ServedServices,
    groups: Iterable[str] | None = None,
    *,
    cors_origins: Sequence[str] = (),
    mcp_default_user_id: str = DEFAULT_USER_ID,
    inline_work: bool = False,
    lazy_routers: bool = False,
) -> FastAPI:
    """The app of the given route groups (every group when None). `mcp_default_user_id`: whose memories the MCP
    tools touch when a call names no entity. `inline_work`: the memory read routes run in the event loop while every
    provider runs in this process (mnemo.api.inline_work). `cors_origins`: the browser origins allowed to
    call it (`scheme://host[:port]`, as settings.cors_allowed_origins gives them); none turns CORS off.
    `lazy_routers`: each router is imported on the first request it could answer (api/lazy_routers.py), as a
    Lambda function wants; else all of them now."""
    chosen = list(GROUP_ROUTERS) if groups is None else list(groups)
    unknown = [g for g in chosen if g not in GROUP_ROUTERS]
    if unknown:
        raise ValueError(f"Unknown route groups: {', '.join(unknown)}. Known: {', '.join(GROUP_ROUTERS)}.")
    app = FastAPI(
        title=TITLE,
        version=mnemo.__version__,
        description=DESCRIPTION,
        redirect_slashes=False,
        docs_url=None,  # the explorer router serves /docs and /redoc with their files, not from a CDN
        redoc_url=None,
    )
    setattr(app.state, SERVICES_STATE, services)
    setattr(app.state, DEFAULT_USER_STATE, mcp_default_user_id)
    if inline_work:
        providers = services.configuration.providers
        app.add_middleware(InlineWorkMiddleware, decide=lambda: runs_in_process(providers.get()))
    references = [ref for group in chosen for ref in GROUP_ROUTERS[group] if ref != EXPLORER]
    routers = LazyRouters(app, references)
    if lazy_routers:
        app.add_middleware(LoadRoutersMiddleware, routers=routers)
    app.add_middleware(BodyGuardMiddleware)  # innermost: its 413 and 400 are logged, carry CORS and a request id
    app.add_middleware(RequestLogMiddleware, log=services.request_log)
    if cors_origins:  # inside the request id (a preflight's answer has one too), outside the request log
        app.add_middleware(AllowedOriginsCors, origins=cors_origins)
    app.add_middleware(RequestIdMiddleware)
    install_error_handlers(app)
    app.include_router(explorer.router)  # every app has the explorer (the admin group's on AWS)
    if not lazy_routers:
        routers.load_all()
    if len(chosen) < len(GROUP_ROUTERS) or lazy_routers:
        app.openapi = whole_api_description  # type: ignore[method-assign]
    else:
        app.openapi = functools.partial(described, app)  # type: ignore[method-assign]

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/docs", status_code=307)

    return app


def described(app: FastAPI) -> dict[str, Any]:
    """FastAPI's description of the app, without the 422 FastAPI lists for every route with parameters or a body
    where the route never answers one (api/routing.py `FieldErrorsRoute`: a 400 keyed by field name instead)."""
    spec = FastAPI.openapi(app)
    for route in api_routes(app.routes):
        if getattr(route, "field_errors", False):
            for method in route.methods or ():
                spec["paths"][route.path_format][method.lower()]["responses"].pop("422", None)
    return spec


def api_routes(routes: Iterable[Any]) -> Iterator[APIRoute]:
    """The routes of an app, those of its included routers too (FastAPI keeps an included router whole; every
    router here is included without a prefix of its own, so a route's path is the app's)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):
            yield from api_routes(route.original_router.routes)


_description: dict[str, Any] = {}


def whole_api_description() -> dict[str, Any]:
    """The OpenAPI description of every route group, for the explorer of an app that serves only some."""
    if not _description:
        whole = FastAPI(title=TITLE, version=mnemo.__version__, description=DESCRIPTION)
        for references in GROUP_ROUTERS.values():
            for router in load_routers(references):
                whole.include_router(router)
        _description.update(described(whole))
    return _description
