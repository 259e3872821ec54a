"""Typed errors to HTTP, in one place. Bodies are FastAPI's `{"detail": ...}`.

A request that does not fit its route's model (FastAPI's validation) is a 422 listing each problem with its
field and message, and never more than a short excerpt of the value sent: a large body of the wrong shape gets
a small answer. A body whose only problems are unknown or forbidden keys is a 400 that names them.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import Match

from mnemo.api.request_id import HEADER, request_id_of
from mnemo.errors import (
    AuthenticationError,
    BackendBusyError,
    ConfigurationError,
    ConflictError,
    FieldsError,
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


class ErrorResponse(JSONResponse):
    """An error's JSON answer that always encodes: text that is not valid Unicode (a lone surrogate a client managed
    to send, echoed in a problem's excerpt) is written as a JSON escape instead of failing the answer."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


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


MAX_ERRORS = 20  # problems listed in one 422
MAX_EXCERPT = 100  # characters of a value shown back


def excerpt(value: Any) -> Any:
    """What a validation error shows of the value sent: a number or a short string as it is, a long string cut,
    an object or a list only by its size."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return value if len(value) <= MAX_EXCERPT else value[:MAX_EXCERPT] + "…"
    if isinstance(value, dict):
        return f"<an object of {len(value):,} keys>"
    if isinstance(value, list | tuple):
        return f"<a list of {len(value):,} items>"
    return f"<{type(value).__name__}>"


def validation_problem(error: dict[str, Any]) -> dict[str, Any]:
    problem: dict[str, Any] = {"type": error["type"], "loc": list(error["loc"]), "msg": error["msg"]}
    if "input" in error:
        problem["input"] = excerpt(error["input"])
    context = error.get("ctx")
    if isinstance(context, dict) and all(v is None or isinstance(v, bool | int | float) for v in context.values()):
        problem["ctx"] = context
    return problem


REQUIRED = "This field is required."


def field_errors(errors: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Validation problems keyed by field name, each a list of messages (Mem0's platform, for webhooks): the
    body's top-level field, or the parameter's name."""
    fields: dict[str, list[str]] = {}
    for error in errors[:MAX_ERRORS]:
        loc = [str(part) for part in error["loc"]]
        name = loc[1]
        if error["type"] == "missing":
            message = REQUIRED
        elif error["type"] == "extra_forbidden":
            message = "This field is not accepted here."
        else:
            where = ".".join(loc[2:])
            message = f"{where}: {error['msg']}" if where else str(error["msg"])
        fields.setdefault(name, []).append(message)
    return fields


def status_of(exc: MnemoError) -> int:
    for kind in type(exc).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    return 400


METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed(request: Request) -> str:
    """The `Allow` of a 405: every method some route of the app takes at the request's path (asked of each route,
    included routers too, through Starlette's public `matches`)."""
    routes = request.app.router.routes
    methods = [
        method
        for method in METHODS
        if any(route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes)
    ]
    return ", ".join(methods)


async def http_error(request: Request, exc: Exception) -> Response:
    """FastAPI's answer to an HTTP error (404, 405), with the whole `Allow` of a 405: Starlette names the methods of
    the first route of the path, and a path has one route per method."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405:
        exc = StarletteHTTPException(405, exc.detail, headers={**(exc.headers or {}), "Allow": allowed(request)})
    return await http_exception_handler(request, exc)


def answer_of(request: Request, exc: MnemoError) -> JSONResponse:
    """The answer to a typed error: its status, and its message under its key (a field error: the fields)."""
    status = status_of(exc)
    if isinstance(exc, FieldsError):
        return ErrorResponse(exc.fields, status_code=status)
    body: dict[str, object] = {exc.key: exc.message}
    headers: dict[str, str] = {}
    if isinstance(exc, ProviderError):
        body.update(code=exc.code, request_id=request_id_of(request.scope))
        log.warning("provider error %s on %s %s", exc.code, request.method, request.url.path)
    elif isinstance(exc, AuthenticationError) and exc.challenge:
        headers["WWW-Authenticate"] = "Bearer"
    elif isinstance(exc, RateLimitedError):
        body["error"] = exc.message  # Mem0's server (slowapi) puts the message under "error"
        headers["Retry-After"] = str(exc.retry_after)
    elif isinstance(exc, BackendBusyError):
        headers["Retry-After"] = str(exc.retry_after)
        log.warning("%s (%s %s)", exc.message, request.method, request.url.path)
    elif isinstance(exc, ServerMisconfiguredError):
        log.error("%s (%s %s)", exc.message, request.method, request.url.path)
    return ErrorResponse(body, status_code=status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(StarletteHTTPException, http_error)

    @app.exception_handler(MnemoError)
    async def mnemo_error(request: Request, exc: MnemoError) -> JSONResponse:
        return answer_of(request, exc)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        if getattr(request.scope.get("route"), "field_errors", False):
            whole = [e for e in errors if len(e["loc"]) < 2 or e["type"] == "json_invalid"]
            if whole:  # not a JSON object at all: no field to name
                return ErrorResponse({"detail": f"The body is not a JSON object: {whole[0]['msg']}."}, status_code=400)
            return ErrorResponse(field_errors(errors), status_code=400)
        problems = [validation_problem(e) for e in errors[:MAX_ERRORS]]
        if len(errors) > MAX_ERRORS:
            problems.append({"type": "more", "loc": [], "msg": f"and {len(errors) - MAX_ERRORS:,} more problems"})
        unknown_keys_only = all(e["type"] == "extra_forbidden" for e in errors)
        return ErrorResponse({"detail": problems}, status_code=400 if unknown_keys_only else 422)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        rid = request_id_of(request.scope)
        log.exception("unhandled error on %s %s (request %s)", request.method, request.url.path, rid)
        return ErrorResponse(
            {"detail": "Internal server error.", "request_id": rid}, status_code=500, headers={HEADER: rid}
        )
