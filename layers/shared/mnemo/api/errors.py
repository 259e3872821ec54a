"""Typed errors to HTTP, in one place. Bodies are FastAPI's `{"detail": ...}`."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from mnemo.api.request_id import HEADER, request_id_of
from mnemo.errors import (
    ConfigurationError,
    ConflictError,
    MnemoError,
    NotFoundError,
    ProviderError,
    ValidationError,
)

log = logging.getLogger("mnemo.api")

STATUS: dict[type[MnemoError], int] = {
    ValidationError: 400,
    ConfigurationError: 400,
    NotFoundError: 404,
    ConflictError: 409,
    ProviderError: 502,
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
        if isinstance(exc, ProviderError):
            body.update(code=exc.code, request_id=request_id_of(request.scope))
            log.warning("provider error %s on %s %s", exc.code, request.method, request.url.path)
        return JSONResponse(body, status_code=status)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        rid = request_id_of(request.scope)
        log.exception("unhandled error on %s %s (request %s)", request.method, request.url.path, rid)
        return JSONResponse(
            {"detail": "Internal server error.", "request_id": rid}, status_code=500, headers={HEADER: rid}
        )
