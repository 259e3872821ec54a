"""The console's browser protections, in one place: the headers every answer carries (a strict
Content-Security-Policy without inline scripts, no framing, no sniffing, no caching of pages that hold a tenant's
data), the session cookie's attributes, and the CSRF check of every form post.

The session cookie is HttpOnly and SameSite=Lax, and Secure when the request came over HTTPS (directly, or behind a
proxy that says `X-Forwarded-Proto: https`). Each form carries the session's CSRF token in a hidden field; a post
without the right one is refused (403) before its handler runs. The sign-in form, which has no session yet, carries a
random token that must match a cookie of its own (double submit)."""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_COOKIE = "mnemo_console"
PRE_SESSION_COOKIE = "mnemo_console_pre"  # the double-submit token of the sign-in and accept forms
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'"
)
HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)
NO_STORE = (b"cache-control", b"no-store")


class SecurityHeaders:
    """Adds HEADERS to every answer of the console, and `Cache-Control: no-store` to every one but its static files
    (the stylesheet and script may be cached)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope.get("path", "").startswith(scope.get("root_path", "") + "/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", [])) + list(HEADERS)
                if not static:
                    headers.append(NO_STORE)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


def is_https(request: Request) -> bool:
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def cookie_path(request: Request) -> str:
    return request.scope.get("root_path", "") or "/"


def set_cookie(response: Response, request: Request, name: str, value: str, max_age: int | None = None) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path=cookie_path(request),
        httponly=True,
        samesite="lax",
        secure=is_https(request),
    )


def clear_cookie(response: Response, request: Request, name: str) -> None:
    response.delete_cookie(name, path=cookie_path(request), httponly=True, samesite="lax", secure=is_https(request))


def tokens_match(expected: str | None, sent: object) -> bool:
    """Whether a form or header sent the expected token (compared in constant time)."""
    return bool(expected) and isinstance(sent, str) and secrets.compare_digest(expected or "", sent)


def new_token() -> str:
    return secrets.token_urlsafe(24)
