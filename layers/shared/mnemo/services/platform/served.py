"""Everything one process serves: the core services, the platform's features and the workers, as one value the
composition root builds (mnemo.composition) and the HTTP routers receive through their dependencies
(mnemo.api.dependencies). It lives here, above both, so that the core services never import the platform."""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.service_set import Services
from mnemo.services.workers import Supervisor


@dataclass(kw_only=True)
class ServedServices(Services):
    platform: PlatformFeatures  # the platform surface (/v1, /v2, /v3, /api/v1/orgs)
    workers: Supervisor  # the process's background workers (none on Lambda); GET /health reports them
