"""The caller's identity as FastAPI dependencies, and the two security schemes /docs offers (Bearer, X-API-Key).

- `Authenticated`: any valid credentials (or disabled auth): the memory, configuration and entity routes.
- `Admin`: an admin user, the admin key, or disabled auth.
- `SessionCaller`: a signed-in user by Bearer token (JWT) only: /auth/me, /auth/change-password, /api-keys.
  With auth disabled and no token, the oldest user (Mem0's rule).
- `LogReader`: an admin by Bearer token, or the admin key: /requests.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from mnemo.api.dependencies import account_service, authenticator, rate_limiter, token_service
from mnemo.domain.accounts import User
from mnemo.domain.identity import AuthMode, Caller
from mnemo.errors import AuthenticationError, PermissionDeniedError

CALLER_STATE = "caller"  # where the identity is kept in the ASGI scope's state, for the request log

bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="BearerToken",
    description="An access token from POST /auth/login (or /auth/refresh).",
)
api_key_scheme = APIKeyHeader(
    name="X-API-Key",
    auto_error=False,
    scheme_name="ApiKey",
    description="A per-user API key (m0sk_…) from POST /api-keys, or the deployment's ADMIN_API_KEY.",
)

BearerCredentials = Annotated[HTTPAuthorizationCredentials | None, Security(bearer_scheme)]
ApiKeyValue = Annotated[str | None, Security(api_key_scheme)]


def remember(request: Request, caller: Caller) -> Caller:
    setattr(request.state, CALLER_STATE, caller)
    return caller


def identified(request: Request, bearer: BearerCredentials, api_key: ApiKeyValue) -> Caller:
    """`authenticated` for a caller already in a worker thread (the MCP route's check)."""
    found = authenticator(request).identify(bearer.credentials if bearer else None, api_key)
    return remember(request, found)


async def authenticated(request: Request, bearer: BearerCredentials, api_key: ApiKeyValue) -> Caller:
    """In the event loop when the key was verified before and nothing changed since (one read of a counter, no
    write), else in a worker thread: the full check reads the stores and may record the key's use."""
    checks = authenticator(request)
    token = bearer.credentials if bearer else None
    caller = checks.identify_verified(token, api_key)
    if caller is None:
        caller = await run_in_threadpool(checks.identify, token, api_key)
    return remember(request, caller)


async def require_admin(caller: Annotated[Caller, Depends(authenticated)]) -> Caller:
    if not caller.is_admin:
        raise PermissionDeniedError("Admin role required.")
    return caller


def session_caller(request: Request, bearer: BearerCredentials) -> Caller:
    tokens = token_service(request)
    disabled = authenticator(request).disabled
    if not disabled:
        tokens.require_configured()
    if bearer is not None:
        grant = tokens.verify_access(bearer.credentials)
        return remember(request, Caller(AuthMode.BEARER, grant.user, family_id=grant.family_id))
    if disabled:
        oldest = account_service(request).oldest()
        if oldest is None:
            raise AuthenticationError("Authentication required.", challenge=True)
        return remember(request, Caller(AuthMode.DISABLED, oldest))
    raise AuthenticationError(
        "A Bearer token is required for this route: sign in with POST /auth/login.", challenge=True
    )


async def current_user(caller: Annotated[Caller, Depends(session_caller)]) -> User:
    if caller.user is None:  # session_caller always resolves a user; this guards the type
        raise AuthenticationError("Authentication required.", challenge=True)
    return caller.user


async def log_reader(caller: Annotated[Caller, Depends(require_admin)]) -> Caller:
    if caller.mode is AuthMode.API_KEY:
        raise PermissionDeniedError("Request logs need a Bearer token or the admin key.")
    return caller


def rate_limited(route: str) -> Callable[[Request], Coroutine[Any, Any, None]]:
    """A dependency that spends one call of the (route, client address) budget (in memory: it runs in the event
    loop)."""

    async def check(request: Request) -> None:
        client = request.client.host if request.client else "unknown"
        rate_limiter(request).check(route, client)

    check.__name__ = f"rate_limit_{route}"
    return check


def limit(route: str) -> Any:
    return Depends(rate_limited(route))


Authenticated = Annotated[Caller, Depends(authenticated)]
Admin = Annotated[Caller, Depends(require_admin)]
SessionCaller = Annotated[Caller, Depends(session_caller)]
CurrentUser = Annotated[User, Depends(current_user)]
LogReader = Annotated[Caller, Depends(log_reader)]
