"""The route groups, each served by one Lambda function (template.yaml routes their paths to it), and the routers
of each. A group's routers are imported when the group is first asked for, never before: a function imports the
routers it serves (and through them their services, bodies and answer models), not the other groups'. The explorer's
description of the whole API asks for every group, on its first call."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping

from fastapi import APIRouter

# group -> "module:attribute" of each of its routers (an attribute may hold a tuple of routers)
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
    "platform": ("mnemo.api.platform:PLATFORM_ROUTERS",),
    "mcp": ("mnemo.api.mcp_server.route:router",),  # /mcp: the MCP tools, calling the routes above in process
}

# The groups whose routes use the platform's features (the MCP tools call the platform's routes in process).
PLATFORM_GROUPS = frozenset({"platform", "mcp"})


def uses_platform(groups: Iterable[str]) -> bool:
    """Whether an app of these groups serves routes that use the platform's features."""
    return not PLATFORM_GROUPS.isdisjoint(groups)


def load_routers(references: tuple[str, ...]) -> tuple[APIRouter, ...]:
    """The routers named by `module:attribute` references, importing their modules now."""
    routers: list[APIRouter] = []
    for reference in references:
        module_name, attribute = reference.split(":")
        found = getattr(importlib.import_module(module_name), attribute)
        routers.extend(found if isinstance(found, tuple) else (found,))
    return tuple(routers)


class RouteGroups(Mapping[str, tuple[APIRouter, ...]]):
    """Each group's routers by name, as a read-only mapping that imports a group's routers on its first lookup."""

    def __init__(self, references: Mapping[str, tuple[str, ...]]) -> None:
        self._references = dict(references)
        self._loaded: dict[str, tuple[APIRouter, ...]] = {}

    def __getitem__(self, group: str) -> tuple[APIRouter, ...]:
        if group not in self._loaded:
            self._loaded[group] = load_routers(self._references[group])
        return self._loaded[group]

    def __contains__(self, group: object) -> bool:
        return group in self._references  # without importing the group (Mapping's would look it up)

    def __iter__(self) -> Iterator[str]:
        return iter(self._references)

    def __len__(self) -> int:
        return len(self._references)

    def loaded(self) -> list[str]:
        """The groups whose routers have been imported so far."""
        return list(self._loaded)


ROUTE_GROUPS = RouteGroups(GROUP_ROUTERS)
