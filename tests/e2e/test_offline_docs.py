"""The explorer works offline (issue 12): /docs (Swagger UI) and /redoc reference no external URL, and every file
they load is served by the app itself with its content type, by every app (each Lambda function's too), and
none of it is in the request log."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from mnemo.api.app import create_app
from mnemo.composition.container import Container

CONTENT_TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".json": "application/json"}


def referenced(html: str) -> list[str]:
    """Every URL the page loads: src and href attributes, and the OpenAPI description's url or spec-url."""
    urls = re.findall(r"""(?:src|href|spec-url)\s*=\s*["']([^"']+)["']""", html)
    urls += re.findall(r"""\burl:\s*["']([^"']+)["']""", html)
    return urls


@pytest.fixture(params=[None, ["memories"]], ids=["every group", "one group"])
def api(request: pytest.FixtureRequest, container: Container) -> Iterator[TestClient]:
    with TestClient(create_app(container, request.param)) as client:
        yield client


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_explorer_loads_only_files_of_the_app_itself(api: TestClient, page: str) -> None:
    response = api.get(page)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert "://" not in html and "//cdn" not in html  # no CDN, no web font, nothing outside the app
    urls = referenced(html)
    assert "/openapi.json" in urls
    assets = [u for u in urls if u.startswith("/docs/assets/")]
    assert len(assets) >= 2, urls  # a script (and a style sheet) at least, and the icon
    for url in urls:
        assert url.startswith("/"), url
        loaded = api.get(url)
        assert loaded.status_code == 200, url
        suffix = url[url.rfind(".") :]
        assert loaded.headers["content-type"].startswith(CONTENT_TYPES[suffix]), (url, loaded.headers)
        assert len(loaded.content) > 1000, url


def test_the_swagger_ui_page_loads_its_script_style_and_icon(api: TestClient) -> None:
    urls = referenced(api.get("/docs").text)
    assert {"/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/docs/assets/favicon.png"} <= set(urls)
    script = api.get("/docs/assets/swagger-ui-bundle.js")
    assert "SwaggerUIBundle" in script.text
    assert "max-age" in script.headers["cache-control"]


def test_only_the_explorers_files_are_served(api: TestClient) -> None:
    for name in ("nothing.js", "..%2Fcore.py", "swagger-ui-bundle.js.map", "__init__.py"):
        assert api.get(f"/docs/assets/{name}").status_code == 404, name


def test_the_explorer_and_its_files_are_not_in_the_request_log(api: TestClient, container: Container) -> None:
    for url in ["/docs", "/redoc", *referenced(api.get("/docs").text), "/docs/assets/redoc.standalone.js"]:
        assert api.get(url).status_code == 200
    api.get("/memories", params={"user_id": "alice"})
    logged = [(e.method, e.path) for e in container.request_log.recent(200)]
    assert logged == [("GET", "/memories")]
