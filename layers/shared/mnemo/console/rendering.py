"""The pages' templates: one Jinja2 environment with autoescape on for every template (a memory's text, a user id or
a webhook URL is always shown as text), loaded from the package so the templates ship in the wheel and the Lambda
layer; and the flash message a form post leaves for the page it redirects to."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from mnemo.console.security import clear_cookie, set_cookie

FLASH_COOKIE = "mnemo_console_flash"
MAX_FLASH = 500  # characters of a flash message kept

ENVIRONMENT = Environment(
    loader=PackageLoader("mnemo.console", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The page of `template`; the flash message left by the previous post is shown once, then cleared."""
    flash = _read_flash(request)
    context.setdefault("root", request.scope.get("root_path", ""))
    context.setdefault("visit", None)
    html = ENVIRONMENT.get_template(template).render(flash=flash, **context)
    response = HTMLResponse(html, status_code=status)
    if flash is not None:
        clear_cookie(response, request, FLASH_COOKIE)
    return response


def redirect(request: Request, path: str, flash: str | None = None, error: bool = False) -> Response:
    """See Other to `path` (inside the console), leaving `flash` for the page there."""
    response = RedirectResponse(request.scope.get("root_path", "") + path, status_code=303)
    if flash:
        kind = "e" if error else "i"
        encoded = base64.urlsafe_b64encode((kind + flash[:MAX_FLASH]).encode()).decode()
        set_cookie(response, request, FLASH_COOKIE, encoded, max_age=60)
    return response


def _read_flash(request: Request) -> dict[str, Any] | None:
    value = request.cookies.get(FLASH_COOKIE)
    if not value:
        return None
    try:
        text = base64.urlsafe_b64decode(value.encode()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if not text:
        return None
    return {"error": text[0] == "e", "message": text[1:]}
