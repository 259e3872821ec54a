"""The core services: the self-hosted surface's memories, configuration, accounts, keys and request log, as one
value. The platform's features come on top of them (mnemo.services.platform.served), never inside: the core
knows nothing of the platform."""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.services.accounts import AccountService
from mnemo.services.api_keys import ApiKeyService
from mnemo.services.authentication import Authenticator
from mnemo.services.configuration import ConfigurationService
from mnemo.services.memory import MemoryService
from mnemo.services.rate_limiter import RateLimiter
from mnemo.services.request_log import RequestLogService
from mnemo.services.selfhosted_entities import EntityService
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
