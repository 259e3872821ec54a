"""Every service the entry points call, as one value the composition root builds (mnemo.composition) and the HTTP
routers receive through their dependencies (mnemo.api.dependencies)."""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.services.accounts import AccountService
from mnemo.services.api_keys import ApiKeyService
from mnemo.services.authentication import Authenticator
from mnemo.services.configuration import ConfigurationService
from mnemo.services.entities import EntityService
from mnemo.services.memory import MemoryService
from mnemo.services.platform.services import PlatformServices
from mnemo.services.rate_limiter import RateLimiter
from mnemo.services.request_log import RequestLogService
from mnemo.services.sessions import SessionService
from mnemo.services.tokens import TokenService


@dataclass(kw_only=True)
class Services:
    memory_service: MemoryService  # the self-hosted surface's memories
    configuration: ConfigurationService
    accounts: AccountService
    tokens: TokenService
    sessions: SessionService
    api_keys: ApiKeyService
    authenticator: Authenticator
    entities: EntityService
    request_log: RequestLogService
    rate_limiter: RateLimiter
    platform: PlatformServices | None = None  # the platform surface (/v1, /v2, /v3, /api/v1/orgs)
