"""The platform caller: `Authorization: Token <project key>` resolved to the key's user and the project it
targets. No other scheme opens the platform routes; AUTH_DISABLED
does not either, since every platform call needs a tenant."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader
from starlette.concurrency import run_in_threadpool

from mnemo.api.platform.dependencies import tenancy_service
from mnemo.domain.tenancy import Role
from mnemo.errors import AuthenticationError
from mnemo.services.platform.tenancy.callers import PlatformCaller
from mnemo.services.platform.tenancy.key_auth import INVALID_KEY

CALLER_STATE = "platform_caller"

token_scheme = APIKeyHeader(
    name="Authorization",
    auto_error=False,
    scheme_name="PlatformToken",
    description="`Token <project API key>`: the scheme word Token, a space, then the key (m0-…).",
)


def _key_of(header: str | None) -> str:
    if header is None:
        raise AuthenticationError(INVALID_KEY)
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "token" or not value.strip():
        raise AuthenticationError(INVALID_KEY)
    return value.strip()


async def platform_caller(request: Request, header: Annotated[str | None, Security(token_scheme)]) -> PlatformCaller:
    """In the event loop when the key was verified before and nothing changed since (one read of a counter, no
    write), else in a worker thread: the full check reads the store and may record the key's use."""
    tenancy = tenancy_service(request)
    value = _key_of(header)
    caller = tenancy.verified(value)
    if caller is None:
        caller = await run_in_threadpool(tenancy.authenticate, value)
    setattr(request.state, CALLER_STATE, caller)
    return caller


def platform_caller_in_thread(request: Request, header: str | None) -> PlatformCaller:
    """`platform_caller` for a caller already in a worker thread (the MCP route's check)."""
    tenancy = tenancy_service(request)
    value = _key_of(header)
    caller = tenancy.verified(value) or tenancy.authenticate(value)
    setattr(request.state, CALLER_STATE, caller)
    return caller


async def owner(caller: Annotated[PlatformCaller, Depends(platform_caller)]) -> PlatformCaller:
    caller.require(Role.OWNER)
    return caller


Caller = Annotated[PlatformCaller, Depends(platform_caller)]
Owner = Annotated[PlatformCaller, Depends(owner)]
