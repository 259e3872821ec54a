"""A signed-in visit to a console page: the session behind the cookie (else a redirect to sign-in), the posted form
checked for its CSRF token, the handler run in a worker thread (the services are synchronous), and the core's typed
errors turned into a page, in one place. A handler is a plain function of the `Visit`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response

from mnemo.console.rendering import redirect, render
from mnemo.console.security import CSRF_FIELD, CSRF_HEADER, SESSION_COOKIE, tokens_match
from mnemo.errors import (
    AuthenticationError,
    ConflictError,
    MnemoError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
    UnavailableError,
    ValidationError,
)

if TYPE_CHECKING:
    from mnemo.ports.console_auth import ConsoleAuth, ConsoleSession
    from mnemo.services.platform.features import PlatformFeatures

CONSOLE_STATE = "console"
MAX_FIELDS = 50  # fields of one form
MAX_FIELD_CHARS = 20_000  # characters of one field (the largest, custom instructions, is bounded lower by the service)
# Fields that may be longer: a profile schema as the editor shows it, indented (the service bounds its JSON at
# 64,000 bytes, compact; indentation adds less than as much again).
LONGER_FIELDS = {"schema": 128_000}
NOT_CONFIGURED = "The console's sign-in is not configured."
BAD_CSRF = "The form's security token is missing or wrong: reload the page and try again."


@dataclass(frozen=True, slots=True)
class ConsoleServices:
    """What the console reads, each on first use: the platform's features and the sign-in (None when the
    deployment has none, and the console answers 503)."""

    platform: Callable[[], PlatformFeatures]
    auth: Callable[[], ConsoleAuth | None]


@dataclass(frozen=True, slots=True)
class Visit:
    request: Request
    session: ConsoleSession
    form: Mapping[str, str]
    services: ConsoleServices
    auth: ConsoleAuth

    @property
    def platform(self) -> PlatformFeatures:
        return self.services.platform()

    def param(self, name: str) -> str:
        return str(self.request.path_params[name])

    def field(self, name: str, default: str = "") -> str:
        return self.form.get(name, default).strip()

    def page(self, template: str, status: int = 200, **context: Any) -> Response:
        return render(self.request, template, status, visit=self, **context)

    def done(self, path: str, flash: str | None = None) -> Response:
        return redirect(self.request, path, flash)


Handler = Callable[[Visit], Response]
Endpoint = Callable[[Request], Awaitable[Response]]


def services_of(request: Request) -> ConsoleServices:
    found: ConsoleServices = getattr(request.app.state, CONSOLE_STATE)
    return found


class FormError(ValidationError):
    """A form too large, or with a file in it."""


async def read_form(request: Request) -> dict[str, str]:
    """The posted fields, each a string within MAX_FIELD_CHARS, or its own bound in LONGER_FIELDS (FormError
    otherwise)."""
    async with request.form(max_files=0, max_fields=MAX_FIELDS) as form:
        fields: dict[str, str] = {}
        for name, value in form.items():
            bound = LONGER_FIELDS.get(name, MAX_FIELD_CHARS)
            if isinstance(value, UploadFile) or len(value) > bound:
                raise FormError(f"The field {name[:40]} is too long (at most {bound:,} characters).")
            fields[name] = value
        return fields


def signed_in(handler: Handler) -> Endpoint:
    """The endpoint of a page for a signed-in person."""

    async def endpoint(request: Request) -> Response:
        services = services_of(request)
        auth = services.auth()
        if auth is None:
            return render(request, "error.html", 503, message=NOT_CONFIGURED)
        session_id = request.cookies.get(SESSION_COOKIE)
        session = await run_in_threadpool(auth.session, session_id) if session_id else None
        if session is None:
            return redirect(request, "/sign-in?next=" + quote(request.url.path.removeprefix(_root(request)) or "/"))
        try:
            form = await read_form(request) if request.method == "POST" else {}
        except Exception as exc:  # the multipart parser's own errors, and ours
            return render(request, "error.html", 400, message=getattr(exc, "message", "The form could not be read."))
        if request.method == "POST" and not tokens_match(
            session.csrf_token, form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
        ):
            return render(request, "error.html", 403, message=BAD_CSRF)
        visit = Visit(request, session, form, services, auth)
        try:
            return await run_in_threadpool(handler, visit)
        except MnemoError as exc:
            return failed(request, exc)

    return endpoint


def failed(request: Request, exc: MnemoError) -> Response:
    """The page of a typed error: a refused form goes back where it came from with the message; the rest is a page
    with the status the API would answer."""
    if request.method == "POST" and isinstance(exc, ValidationError | ConflictError | AuthenticationError):
        return redirect(request, back_path(request), exc.message, error=True)
    status = next((code for kind, code in _STATUS.items() if isinstance(exc, kind)), 400)
    return render(request, "error.html", status, message=exc.message)


_STATUS: dict[type[MnemoError], int] = {
    NotFoundError: 404,
    PermissionDeniedError: 403,
    AuthenticationError: 401,
    ConflictError: 409,
    RateLimitedError: 429,
    UnavailableError: 503,
    ValidationError: 400,
}


def _root(request: Request) -> str:
    return str(request.scope.get("root_path", ""))


def back_path(request: Request) -> str:
    """The console path the post came from (its Referer, when it is this console's), else the home page."""
    referer = urlsplit(request.headers.get("referer", ""))
    root = _root(request)
    if referer.netloc and referer.netloc != request.headers.get("host", ""):
        return "/"
    if not referer.path.startswith(root + "/"):
        return "/"
    return safe_next(referer.path.removeprefix(root) + (f"?{referer.query}" if referer.query else ""))


def safe_next(path: str) -> str:
    """A path inside the console to go to after sign-in: never another site (`//host`, a scheme, a backslash)."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path or ":" in path.partition("?")[0]:
        return "/"
    return path
