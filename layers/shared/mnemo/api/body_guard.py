"""The first check of every request body, before any route reads it: its size, its encoding, and no lone UTF-16
surrogate.

- A body over MAX_BODY_BYTES is a 413 before it is read whole (its Content-Length, or its bytes as they arrive):
  no request can make the process hold more. The largest bodies a route takes are far smaller (one add is at most
  100 kB of text and metadata; JSON escapes can triple that).
- A JSON text is UTF-8 (RFC 8259, section 8.1). Python's JSON parser would also take UTF-16 and UTF-32, and bytes
  that encode a surrogate (ED A0 80 to ED BF BF), which no UTF-8 store, index or answer can take: a body that is not
  valid UTF-8 is a 400 naming the first bad byte.
- JSON lets a string hold half of a UTF-16 surrogate pair ("\\ud800"), which no UTF-8 store, index or answer can
  take: such a body is a 400 naming the problem, before any route (or event) sees it.
"""

from __future__ import annotations

import json
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 1_048_576  # 1 MiB
MAX_BODY_DEPTH = 64  # nested objects and lists of a JSON body (the bounds of its fields are smaller still)

_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)  # a JSON escape; an escaped backslash is one unit
_STRUCTURE = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)  # a whole string, or a bracket outside one


def nests_deeper(body: bytes, limit: int = MAX_BODY_DEPTH) -> bool:
    """Whether a JSON text opens more than `limit` objects and lists inside each other (measured without parsing
    it: a parser would recurse that deep)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    for match in _STRUCTURE.finditer(body):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        elif token in (b"]", b"}"):
            depth -= 1
    return False


def invalid_utf8_at(body: bytes) -> int | None:
    """The offset of the first byte of `body` that is not valid UTF-8 (surrogates included), or None."""
    if body.isascii():
        return None
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return None


def lone_surrogate_at(body: bytes) -> int | None:
    """The offset of the first \\uXXXX escape of a lone surrogate in a JSON text, or None."""
    if b"\\u" not in body:
        return None
    pending_high: int | None = None  # the offset of a high surrogate that must be followed by a low one
    for match in _ESCAPE.finditer(body):
        code = int(match.group(1), 16) if match.group(1) else None
        if pending_high is not None:
            if match.start() == pending_high + 6 and code is not None and 0xDC00 <= code <= 0xDFFF:
                pending_high = None
                continue
            return pending_high
        if code is not None and 0xD800 <= code <= 0xDBFF:
            pending_high = match.start()
        elif code is not None and 0xDC00 <= code <= 0xDFFF:
            return match.start()
    return pending_high


def body_problem(body: bytes) -> str | None:
    """What makes a body that fits the size bound unreadable as JSON text, or None."""
    if nests_deeper(body):
        return f"The body nests objects and lists more than {MAX_BODY_DEPTH} deep."
    bad = invalid_utf8_at(body)
    if bad is not None:
        return (
            f"The body is not valid UTF-8 (byte 0x{body[bad]:02X} at offset {bad}): a JSON body must be UTF-8 text "
            "(RFC 8259, section 8.1)."
        )
    at = lone_surrogate_at(body)
    if at is not None:
        excerpt = body[at : at + 6].decode("ascii", "replace")
        return (
            f"The body holds a lone UTF-16 surrogate ({excerpt} at byte {at}): a JSON string must be valid Unicode "
            "(a surrogate only as the first half of a pair)."
        )
    return None


class BodyGuardMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _refuse(send, 413, self._too_large(int(declared)))
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                await self.app(scope, _replay(b"", message, receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _refuse(send, 413, self._too_large(size, at_least=True))
                return
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)
        problem = body_problem(body)
        if problem is not None:
            await _refuse(send, 400, problem)
            return
        await self.app(scope, _replay(body, None, receive), send)

    def _too_large(self, size: int, *, at_least: bool = False) -> str:
        amount = f"more than {self.max_bytes:,}" if at_least else f"{size:,}"
        return f"The request body is {amount} bytes; at most {self.max_bytes:,} are accepted."


def _replay(body: bytes, first: Message | None, receive: Receive) -> Receive:
    """A receive that hands the app the body read already (or the message that ended the reading), then the
    connection's own messages (a disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return first if first is not None else {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(send: Send, status: int, detail: str) -> None:
    payload = json.dumps({"detail": detail}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode("ascii"))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
