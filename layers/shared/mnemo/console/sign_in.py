"""Signing in and out, changing one's password, and accepting an invitation: the pages of the sign-in port
(mnemo.ports.console_auth). The sign-in and accept forms have no session yet: each carries a random token that must
match a cookie set with the form (double submit), so another site cannot sign a browser in to an account of its
choosing."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mnemo.console.rendering import redirect, render
from mnemo.console.security import (
    CSRF_FIELD,
    PRE_SESSION_COOKIE,
    SESSION_COOKIE,
    clear_cookie,
    new_token,
    set_cookie,
    tokens_match,
)
from mnemo.console.visits import BAD_CSRF, NOT_CONFIGURED, Visit, read_form, safe_next, services_of, signed_in
from mnemo.errors import MnemoError, NotFoundError, RateLimitedError, ValidationError
from mnemo.ports.console_auth import ConsoleAuth, ConsoleSession, Invitation

MAX_TOKEN = 200  # characters of an invitation token


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _form_page(request: Request, template: str, status: int = 200, **context: object) -> Response:
    """A pre-session form with a fresh double-submit token, in its cookie too."""
    token = new_token()
    response = render(request, template, status, pre_token=token, **context)
    set_cookie(response, request, PRE_SESSION_COOKIE, token, max_age=3600)
    return response


def _signed_in_as(request: Request, session: ConsoleSession, to: str) -> Response:
    response = redirect(request, to)
    set_cookie(
        response, request, SESSION_COOKIE, session.session_id
    )  # the browser's session; the server's expiry rules
    clear_cookie(response, request, PRE_SESSION_COOKIE)
    return response


async def _pre_session_form(request: Request) -> dict[str, str] | Response:
    """The posted form of a pre-session page, or the page refusing it (no sign-in configured, a wrong token)."""
    try:
        form = await read_form(request)
    except Exception as exc:
        return render(request, "error.html", 400, message=getattr(exc, "message", "The form could not be read."))
    if not tokens_match(request.cookies.get(PRE_SESSION_COOKIE), form.get(CSRF_FIELD)):
        return render(request, "error.html", 403, message=BAD_CSRF)
    return form


def _auth(request: Request) -> ConsoleAuth | None:
    return services_of(request).auth()


async def sign_in_page(request: Request) -> Response:
    if _auth(request) is None:
        return render(request, "error.html", 503, message=NOT_CONFIGURED)
    return _form_page(request, "sign_in.html", next=safe_next(request.query_params.get("next", "/")))


async def sign_in(request: Request) -> Response:
    auth = _auth(request)
    if auth is None:
        return render(request, "error.html", 503, message=NOT_CONFIGURED)
    form = await _pre_session_form(request)
    if isinstance(form, Response):
        return form
    to = safe_next(form.get("next", "/"))
    try:
        session = await run_in_threadpool(
            auth.sign_in, form.get("email", ""), form.get("password", ""), _client(request)
        )
    except RateLimitedError as exc:  # the throttle: the same page, and when to try again
        refused = _form_page(request, "sign_in.html", 429, next=to, error=exc.message, email=form.get("email", ""))
        refused.headers["Retry-After"] = str(exc.retry_after)
        return refused
    except MnemoError as exc:
        return _form_page(request, "sign_in.html", 401, next=to, error=exc.message, email=form.get("email", ""))
    return _signed_in_as(request, session, to)


def _sign_out(visit: Visit) -> Response:
    visit.auth.sign_out(visit.session.session_id)
    response = redirect(visit.request, "/sign-in", "You are signed out.")
    clear_cookie(response, visit.request, SESSION_COOKIE)
    return response


def _password(visit: Visit) -> Response:
    if visit.request.method == "GET":
        return visit.page("password.html")
    if visit.form.get("new", "") != visit.form.get("repeat", ""):
        raise ValidationError("The two new passwords differ.")
    visit.auth.change_password(visit.session.session_id, visit.form.get("current", ""), visit.form.get("new", ""))
    return visit.done("/", "Your password is changed; your other sessions are signed out.")


async def accept_page(request: Request) -> Response:
    auth = _auth(request)
    if auth is None:
        return render(request, "error.html", 503, message=NOT_CONFIGURED)
    token = request.query_params.get("token", "")[:MAX_TOKEN]
    invitation = await run_in_threadpool(auth.invitation, token) if token else None
    if invitation is None:
        return render(request, "error.html", 404, message="This invitation is unknown, spent or expired.")
    return _form_page(request, "accept.html", invitation=invitation, token=token)


async def accept(request: Request) -> Response:
    auth = _auth(request)
    if auth is None:
        return render(request, "error.html", 503, message=NOT_CONFIGURED)
    form = await _pre_session_form(request)
    if isinstance(form, Response):
        return form
    token = form.get("token", "")[:MAX_TOKEN]
    invitation = await run_in_threadpool(auth.invitation, token) if token else None
    try:
        if form.get("password", "") != form.get("repeat", ""):
            raise ValidationError("The two passwords differ.")
        session = await run_in_threadpool(auth.accept, token, form.get("password", ""), _client(request))
    except NotFoundError as exc:
        return render(request, "error.html", 404, message=exc.message)
    except MnemoError as exc:
        return _form_page(request, "accept.html", 400, invitation=invitation, token=token, error=exc.message)
    return _signed_in_as(request, session, _landing(invitation))


def _landing(invitation: Invitation | None) -> str:
    """Where an accepted invitation leads: its project (a project's member may belong to no organization, and the
    home page lists organizations), else the home page."""
    if invitation is None or invitation.project_id is None:
        return "/"
    return f"/orgs/{invitation.org_id}/projects/{invitation.project_id}/"


ROUTES = [
    Route("/sign-in", sign_in_page, methods=["GET"]),
    Route("/sign-in", sign_in, methods=["POST"]),
    Route("/sign-out", signed_in(_sign_out), methods=["POST"]),
    Route("/password", signed_in(_password), methods=["GET", "POST"]),
    Route("/accept", accept_page, methods=["GET"]),
    Route("/accept", accept, methods=["POST"]),
]
