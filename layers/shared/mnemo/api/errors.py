"""Typed errors to HTTP, in one place. Bodies are FastAPI's `{"detail": ...}`."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from mnemo.api.request_id import HEADER, request_id_of
from mnemo.errors import (
    AuthenticationError,
    ConfigurationError,
    ConflictError,
    MnemoError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ProviderError,
    RateLimitedError,
    ServerMisconfiguredError,
    UnavailableError,
    ValidationError,
)

log = logging.getLogger("mnemo.api")

STATUS: dict[type[MnemoError], int] = {
    ValidationError: 400,
    ConfigurationError: 400,
    AuthenticationError: 401,
    PermissionDeniedError: 403,
    NotFoundError: 404,
    ConflictError: 409,
    PayloadTooLargeError: 413,
    RateLimitedError: 429,
    ServerMisconfiguredError: 500,
    ProviderError: 502,
    UnavailableError: 503,
}


def status_of(exc: MnemoError) -> int:
    for kind in type(exc).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    return 400


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(MnemoError)
    async def mnemo_error(request: Request, exc: MnemoError) -> JSONResponse:
        status = status_of(exc)
        body: dict[str, object] = {"detail": exc.message}
        headers: dict[str, str] = {}
        if isinstance(exc, ProviderError):
            body.update(code=exc.code, request_id=request_id_of(request.scope))
            log.warning("provider error %s on %s %s", exc.code, request.method, request.url.path)
        elif isinstance(exc, AuthenticationError) and exc.challenge:
            headers["WWW-Authenticate"] = "Bearer"
        elif isinstance(exc, RateLimitedError):
            body["error"] = exc.message  # Mem0's server (slowapi) puts the message under "error"
            headers["Retry-After"] = str(exc.retry_after)
        elif isinstance(exc, ServerMisconfiguredError):
            log.error("%s (%s %s)", exc.message, request.method, request.url.path)
        return JSONResponse(body, status_code=status, headers=headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        rid = request_id_of(request.scope)
        log.exception("unhandled error on %s %s (request %s)", request.method, request.url.path, rid)
        return JSONResponse(
            {"detail": "Internal server error.", "request_id": rid}, status_code=500, headers={HEADER: rid}
        )
