"""CORS for the origins the operator allows (settings `DASHBOARD_URL` and `MNEMO_CORS_ORIGINS`, passed in by the
entry points), and for no other.

Starlette's CORSMiddleware answers the preflights of every path and adds the CORS headers to the answers; a request
from any other origin passes by it untouched (Starlette would still add its credentials and exposed headers to such
an answer, and list its methods and headers in a refused preflight). Credentials are allowed, as Mem0's server
allows them to its dashboard; the allowed methods and headers are those the API reads.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mnemo.api.request_id import HEADER as REQUEST_ID

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
HEADERS = (
    "Authorization",  # Bearer <access token>; Token <project key> on the platform surface
    "X-API-Key",
    "Content-Type",
    REQUEST_ID,
    # sent by the Mem0 platform clients; mnemo ignores them, but a browser must be allowed to send them
    "Idempotency-Key",
    "Mem0-User-ID",
    "X-Mem0-Source",
    "X-Mem0-Client",
    "X-Application",
)
EXPOSED = (REQUEST_ID, "Retry-After")  # what a page may read of an answer beside the CORS-safelisted headers
MAX_AGE = 600  # seconds a browser may keep a preflight's answer


class AllowedOriginsCors:
    def __init__(self, app: ASGIApp, origins: Iterable[str]) -> None:
        self.app = app
        self.origins = frozenset(origins)
        self.cors = CORSMiddleware(
            app,
            allow_origins=sorted(self.origins),
            allow_methods=METHODS,
            allow_headers=HEADERS,
            allow_credentials=True,
            expose_headers=EXPOSED,
            max_age=MAX_AGE,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin = Headers(scope=scope).get("origin") if scope["type"] == "http" else None
        if origin is None:
            await self.app(scope, receive, send)
        elif origin in self.origins:
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, _varies_by_origin(send))


def _varies_by_origin(send: Send) -> Send:
    """An answer to another origin carries no CORS header, but says that it depends on the origin (a cache must
    not hand it to an allowed one)."""

    async def send_with_vary(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = list(message.get("headers", []))
            MutableHeaders(scope=message).add_vary_header("Origin")
        await send(message)

    return send_with_vary
