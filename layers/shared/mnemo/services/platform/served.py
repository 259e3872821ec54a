"""Everything one process serves: the core services, the platform's features and the workers, as one value the
composition root builds (mnemo.composition) and the HTTP routers receive through their dependencies
(mnemo.api.dependencies). It lives here, above both, so that the core services never import the platform.

The platform's features are built on their first use (`features`, a `Lazy`): a Lambda function that serves only
the self-hosted routes never imports or builds them; the local process builds them at once (its workers need them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mnemo.services.lazy import Lazy
from mnemo.services.service_set import Services
from mnemo.services.workers import Supervisor

if TYPE_CHECKING:
    from mnemo.services.platform.features import PlatformFeatures


@dataclass(kw_only=True)
class ServedServices(Services):
    features: Lazy[PlatformFeatures]  # the platform surface (/v1, /v2, /v3, /api/v1/orgs), built on first use
    workers: Supervisor  # the process's background workers (none on Lambda); GET /health reports them

    @property
    def platform(self) -> PlatformFeatures:
        """The platform's features, built now if nothing asked for them before."""
        return self.features.get()
