"""An app's routers imported on demand: a router is imported and included when a request's path could be one of
its routes (route_groups.ROUTER_PATHS), never before.

Why: a Lambda function serves a whole route group, but each invocation uses one router, and importing a router
imports its services, bodies and answer models. The platform function's first `/v1/memories/` call should not pay for
the Dream, webhook and organisation routes, nor the MCP function's self-hosted call for the platform's. Routes keep
the order an app that includes everything at once gives them, so a path matches the same route either way."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from fastapi import FastAPI
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from mnemo.api.route_groups import ROUTER_PATHS, load_router

ROUTERS_STATE = "lazy_routers"  # where an app keeps its LazyRouters (app.state)


class LazyRouters:
    """The routers (`module:attribute` references, in the order the app would include them) that `app` includes
    on the first request whose path begins as one of theirs."""

    def __init__(self, app: FastAPI, references: Sequence[str]) -> None:
        unknown = [r for r in references if r not in ROUTER_PATHS]
        if unknown:
            raise ValueError(f"No path beginnings are known for the routers {', '.join(unknown)}.")
        self._app = app
        setattr(app.state, ROUTERS_STATE, self)
        self._order = tuple(references)
        self._routes: dict[str, list[BaseRoute]] = {}
        self._lock = threading.Lock()

    def loaded(self) -> list[str]:
        """The references included so far, in the app's order."""
        return [r for r in self._order if r in self._routes]

    def load_for(self, path: str) -> None:
        """Include every router one of whose routes could answer `path`."""
        due = [r for r in self._order if r not in self._routes and path.startswith(ROUTER_PATHS[r])]
        if due:
            self._include(due)

    def load_all(self) -> None:
        self._include([r for r in self._order if r not in self._routes])

    def _include(self, references: list[str]) -> None:
        with self._lock:
            routes = self._app.router.routes
            for reference in references:
                if reference in self._routes:
                    continue  # another thread included it meanwhile
                router = load_router(reference)
                start = len(routes)
                self._app.include_router(router)
                self._routes[reference] = routes[start:]
                del routes[start:]
            ours = {id(route) for added in self._routes.values() for route in added}
            others = [route for route in routes if id(route) not in ours]
            routes[:] = others + [route for r in self.loaded() for route in self._routes[r]]


class LoadRoutersMiddleware:
    """Has the app's lazy routers include what a request's path needs before the app routes it."""

    def __init__(self, app: ASGIApp, routers: LazyRouters) -> None:
        self.app = app
        self.routers = routers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            self.routers.load_for(scope["path"])
        await self.app(scope, receive, send)


def lazy_routers(app: FastAPI) -> LazyRouters:
    """The routers of an app built by api/app.py `create_app`, and which of them it has included."""
    routers: LazyRouters = getattr(app.state, ROUTERS_STATE)
    return routers
