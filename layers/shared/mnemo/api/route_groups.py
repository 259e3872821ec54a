"""The route groups, each served by one Lambda function (template.yaml routes their paths to it), and the routers
of each, named as `module:attribute` references and imported only when an app includes them: a function imports the
routers it serves (and through them their services, bodies and answer models), not the other groups'. The explorer's
description of the whole API imports every group's, on its first call.

`ROUTER_PATHS` says where each router's paths begin, without importing it: an app that loads its routers on demand
(api/lazy_routers.py) imports one when a request's path could be one of its routes."""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from fastapi import APIRouter

# group -> "module:attribute" of each of its routers, in the order an app includes them
GROUP_ROUTERS: dict[str, tuple[str, ...]] = {
    "memories": ("mnemo.api.selfhosted.memories:router",),  # /memories*, /search, /reset
    "configure": ("mnemo.api.selfhosted.configure:router",),  # /configure*
    "auth": (  # /auth/*, /api-keys*, /users*
        "mnemo.api.selfhosted.auth:router",
        "mnemo.api.selfhosted.api_keys:router",
        "mnemo.api.selfhosted.users:router",
    ),
    "admin": (  # /requests, /entities*, /health, and the explorer
        "mnemo.api.selfhosted.request_log:router",
        "mnemo.api.selfhosted.entities:router",
        "mnemo.api.health:router",
        "mnemo.api.explorer:router",
    ),
    # surface A: /v1/*, /v2/*, /v3/*, /api/v1/orgs/* (Authorization: Token)
    "platform": (
        "mnemo.api.platform.project_data:router",
        "mnemo.api.platform.memories:router",
        "mnemo.api.platform.imports:router",
        "mnemo.api.platform.organizations:router",
        "mnemo.api.platform.usage:router",
        "mnemo.api.platform.dream:router",
        "mnemo.api.platform.webhooks:router",
        "mnemo.api.platform.profiles:router",
    ),
    "mcp": ("mnemo.api.mcp_server.route:router",),  # /mcp: the MCP tools, calling the routes above in process
}

# router reference -> the beginnings of its routes' paths (tests/unit/test_route_groups.py checks every route)
_ORGS = "/api/v1/orgs/organizations/"
ROUTER_PATHS: dict[str, tuple[str, ...]] = {
    "mnemo.api.selfhosted.memories:router": ("/memories", "/search", "/reset"),
    "mnemo.api.selfhosted.configure:router": ("/configure", "/generate-instructions"),
    "mnemo.api.selfhosted.auth:router": ("/auth/",),
    "mnemo.api.selfhosted.api_keys:router": ("/api-keys",),
    "mnemo.api.selfhosted.users:router": ("/users",),
    "mnemo.api.selfhosted.request_log:router": ("/requests",),
    "mnemo.api.selfhosted.entities:router": ("/entities",),
    "mnemo.api.health:router": ("/health",),
    "mnemo.api.explorer:router": ("/docs", "/redoc"),
    "mnemo.api.platform.project_data:router": (
        *(f"/v1/{name}/" for name in ("agents", "apps", "entities", "event", "events", "exports", "feedback")),
        *(f"/v1/{name}/" for name in ("ping", "runs", "stats", "summary", "users")),
        "/v2/entities/",
    ),
    "mnemo.api.platform.memories:router": ("/v1/batch/", "/v1/memories/", "/v2/memories/", "/v3/memories/"),
    "mnemo.api.platform.imports:router": ("/v1/memories/import/",),
    "mnemo.api.platform.organizations:router": (_ORGS,),
    "mnemo.api.platform.usage:router": (_ORGS,),
    "mnemo.api.platform.dream:router": (_ORGS,),
    "mnemo.api.platform.webhooks:router": ("/api/v1/webhooks/",),
    "mnemo.api.platform.profiles:router": ("/v2/entities/", "/v2/profiles/"),
    "mnemo.api.mcp_server.route:router": ("/mcp",),
}

# The groups whose routes use the platform's features (the MCP tools call the platform's routes in process).
PLATFORM_GROUPS = frozenset({"platform", "mcp"})


def uses_platform(groups: Iterable[str]) -> bool:
    """Whether an app of these groups serves routes that use the platform's features."""
    return not PLATFORM_GROUPS.isdisjoint(groups)


def load_router(reference: str) -> APIRouter:
    """The router named by a `module:attribute` reference, importing its module now."""
    module_name, attribute = reference.split(":")
    router: APIRouter = getattr(importlib.import_module(module_name), attribute)
    return router


def load_routers(references: tuple[str, ...]) -> tuple[APIRouter, ...]:
    """The routers named by `module:attribute` references, importing their modules now."""
    return tuple(load_router(reference) for reference in references)
