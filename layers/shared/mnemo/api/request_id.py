"""Every response carries X-Request-ID: the caller's, when it sent a sane one, or 8 new hex characters."""

from __future__ import annotations

import os
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = "X-Request-ID"
_SANE = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def request_id_of(scope: Scope) -> str:
    state = scope.setdefault("state", {})
    rid = state.get("request_id")
    if rid is None:
        sent = b""
        for name, value in scope.get("headers") or ():  # the last one sent, as a dict of the headers would keep
            if name == b"x-request-id":
                sent = value
        text = sent.decode("latin-1")
        # 8 random hex characters, as uuid4().hex[:8] gave, from 4 random bytes instead of a whole UUID's 16
        rid = text if _SANE.match(text) else os.urandom(4).hex()
        state["request_id"] = rid
    return str(rid)


class RequestIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id_of(scope)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"]
                headers.append((b"x-request-id", rid.encode("latin-1")))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_id)
