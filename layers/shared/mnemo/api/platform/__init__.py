"""The platform surface: `/v1/`, `/v2/`, `/v3/` and `/api/v1/orgs/` routes,
authenticated by `Authorization: Token <project key>`. `PLATFORM_ROUTERS` is what the app includes."""

from __future__ import annotations

from fastapi import APIRouter

from mnemo.api.platform import dream, imports, memories, organizations, profiles, project_data, usage, webhooks

PLATFORM_ROUTERS: tuple[APIRouter, ...] = (
    project_data.router,
    memories.router,
    imports.router,
    organizations.router,
    usage.router,
    dream.router,
    webhooks.router,
    profiles.router,
)
