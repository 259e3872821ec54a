"""The API explorer, offline: Swagger UI at /docs and ReDoc at /redoc, whose scripts, styles and icon the app
serves itself under /docs/assets/ (the files of the PyPI package fastapi-offline), so the explorer works without
internet access, behind a private network, or where a CDN is blocked. Every app serves it (the admin function on
AWS); nothing of it is in /openapi.json or the request log."""

from __future__ import annotations

import functools
from importlib.resources import files

from fastapi import APIRouter, HTTPException, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from mnemo.api.routing import TypedRoute

ASSETS = "/docs/assets"
MEDIA_TYPES = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "redoc.standalone.js": "text/javascript; charset=utf-8",
    "favicon.png": "image/png",
}
CACHED_FOR = "public, max-age=86400"  # the files change only with the package's version

router = APIRouter(route_class=TypedRoute, include_in_schema=False)


def _root(request: Request) -> str:
    """The path the app is served under (empty unless a proxy strips a prefix)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


@router.get("/docs")
async def swagger_ui(request: Request) -> HTMLResponse:
    root = _root(request)
    return get_swagger_ui_html(
        openapi_url=f"{root}{request.app.openapi_url}",
        title=f"{request.app.title} - Swagger UI",
        swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
        oauth2_redirect_url=None,  # no OAuth2 flow: the API's schemes are a bearer token and API key headers
        swagger_ui_parameters={"validatorUrl": None},  # never send the description to validator.swagger.io
    )


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    root = _root(request)
    return get_redoc_html(
        openapi_url=f"{root}{request.app.openapi_url}",
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
        redoc_favicon_url=f"{root}{ASSETS}/favicon.png",
        with_google_fonts=False,
    )


@router.get(ASSETS + "/{name}")
def asset(name: str) -> Response:
    media_type = MEDIA_TYPES.get(name)
    if media_type is None:
        raise HTTPException(status_code=404, detail="Not Found")
    return Response(asset_bytes(name), media_type=media_type, headers={"Cache-Control": CACHED_FOR})


@functools.cache
def asset_bytes(name: str) -> bytes:
    """One of the explorer's files, read once (the package is imported only when the explorer is first opened)."""
    return files("fastapi_offline").joinpath("static", name).read_bytes()
