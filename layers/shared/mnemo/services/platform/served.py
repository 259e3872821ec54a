"""Everything one process serves: the core services and the platform's features, as one value the composition root
builds (mnemo.composition) and the HTTP routers receive through their dependencies (mnemo.api.dependencies). It
lives here, above both, so that the core services never import the platform."""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.services.platform.features import PlatformServices
from mnemo.services.service_set import Services


@dataclass(kw_only=True)
class ServedServices(Services):
    platform: PlatformServices | None = None  # the platform surface (/v1, /v2, /v3, /api/v1/orgs)
