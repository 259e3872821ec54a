"""The platform caller: `Authorization: Token <project key>` resolved to the key's user and the project it
targets (service-interface.md, Authentication A). No other scheme opens the platform routes; AUTH_DISABLED
does not either, since every platform call needs a tenant."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader

from mnemo.api.dependencies import tenancy_service
from mnemo.domain.tenancy import Role
from mnemo.errors import AuthenticationError
from mnemo.services.platform.tenancy import INVALID_KEY, PlatformCaller

CALLER_STATE = "platform_caller"

token_scheme = APIKeyHeader(
    name="Authorization",
    auto_error=False,
    scheme_name="PlatformToken",
    description="`Token <project API key>`: the scheme word Token, a space, then the key (m0-…).",
)


def platform_caller(request: Request, header: Annotated[str | None, Security(token_scheme)]) -> PlatformCaller:
    tenancy = tenancy_service(request)
    if header is None:
        raise AuthenticationError(INVALID_KEY)
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "token" or not value.strip():
        raise AuthenticationError(INVALID_KEY)
    caller = tenancy.authenticate(value.strip())
    setattr(request.state, CALLER_STATE, caller)
    return caller


async def owner(caller: Annotated[PlatformCaller, Depends(platform_caller)]) -> PlatformCaller:
    caller.require(Role.OWNER)
    return caller


Caller = Annotated[PlatformCaller, Depends(platform_caller)]
Owner = Annotated[PlatformCaller, Depends(owner)]
