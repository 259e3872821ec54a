"""Records every API call in the request log after its response: method, path (never the query string),
status, latency, auth mode and who (user id or key prefix). Never a body or a header value."""

from __future__ import annotations

import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mnemo.api.request_id import request_id_of
from mnemo.api.security import CALLER_STATE
from mnemo.domain.identity import AuthMode, Caller
from mnemo.domain.memory import now
from mnemo.domain.request_log import RequestLogEntry
from mnemo.services.request_log import RequestLogService

NOT_LOGGED = frozenset({"/", "/docs", "/redoc", "/openapi.json", "/favicon.ico"})
NOT_LOGGED_UNDER = ("/docs/", "/requests")  # the explorer's files (api/explorer.py); the log itself
MAX_PATH = 512


def is_logged(method: str, path: str) -> bool:
    """API calls only: not the explorer, its files and its description, not CORS preflights (nor any OPTIONS), and
    not reads of the log itself (a dashboard polling it would fill it with its own calls)."""
    return method != "OPTIONS" and path not in NOT_LOGGED and not path.startswith(NOT_LOGGED_UNDER)


class RequestLogMiddleware:
    def __init__(self, app: ASGIApp, log: RequestLogService) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_logged(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what an exception that escapes the app becomes

        async def send_and_watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_and_watch)
        finally:
            caller = scope.get("state", {}).get(CALLER_STATE)
            who = caller if isinstance(caller, Caller) else Caller(AuthMode.NONE)
            self.log.submit(
                RequestLogEntry(
                    id=str(uuid.uuid4()),
                    method=scope["method"],
                    path=scope["path"][:MAX_PATH],
                    status_code=status,
                    latency_ms=round((time.perf_counter() - started) * 1000, 2),
                    auth_type=who.mode.value,
                    created_at=now(),
                    user_id=who.user.id if who.user else None,
                    key_prefix=who.key_prefix,
                    request_id=request_id_of(scope),
                )
            )
