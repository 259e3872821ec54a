"""CORS (issue 12): a browser page of an allowed origin (DASHBOARD_URL, MNEMO_CORS_ORIGINS) may call every route of
both surfaces, its preflights answered and never logged; any other origin gets no CORS header at all; an empty
MNEMO_CORS_ORIGINS turns CORS off. The entry points (`mnemo serve`, the Lambda functions) pass the settings' origins
to the app."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import ValidationError

from mnemo.api.app import create_app
from mnemo.api.route_groups import GROUP_ROUTERS, load_routers
from mnemo.composition.container import Container, LazyContainer
from mnemo.entrypoints import cli
from mnemo.entrypoints.lambda_http import HttpFunction
from mnemo.settings import Settings

DASHBOARD = "http://localhost:3000"
OTHER_APP = "https://notes.example.com"
STRANGER = "https://evil.example.net"
Response = Any  # TestClient answers with httpx's or httpx2's Response, whichever starlette found installed


@pytest.fixture
def api(container: Container) -> Iterator[TestClient]:
    with TestClient(create_app(container, cors_origins=(DASHBOARD, OTHER_APP))) as client:
        yield client


def cors_headers(response: Response) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items() if k.lower().startswith("access-control-")}


def preflight(client: TestClient, path: str, origin: str, method: str = "POST", **more: str) -> Response:
    headers = {
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "authorization, content-type, x-api-key",
        **more,
    }
    return client.options(path, headers=headers)


def every_route() -> list[tuple[str, str]]:
    """(method, path) of every route of every group (both surfaces), with a sample value in each path parameter."""
    routes: list[tuple[str, str]] = []
    for routers in map(load_routers, GROUP_ROUTERS.values()):
        for route in (r for router in routers for r in router.routes):
            assert isinstance(route, APIRoute)
            path = re.sub(r"\{[^}]+\}", "x1", route.path)
            routes.extend((method, path) for method in sorted(route.methods or ()))
    return routes


# ---- an allowed origin ------------------------------------------------------------------------------------


@pytest.mark.parametrize("origin", [DASHBOARD, OTHER_APP])
def test_an_allowed_origin_reads_the_answer_with_credentials_and_the_request_id(api: TestClient, origin: str) -> None:
    response = api.get("/memories", params={"user_id": "alice"}, headers={"Origin": origin})
    assert response.status_code == 200
    cors = cors_headers(response)
    assert cors["access-control-allow-origin"] == origin
    assert cors["access-control-allow-credentials"] == "true"
    assert "X-Request-ID" in cors["access-control-expose-headers"]
    assert "Origin" in response.headers["vary"]


def test_both_surfaces_answer_an_allowed_origin_even_when_they_refuse_the_call(api: TestClient) -> None:
    """An error must be readable too: without CORS headers a browser shows a network error instead of the 401."""
    for path in ("/v1/memories/", "/v3/memories/search/", "/api/v1/orgs/organizations/"):
        response = api.get(path, headers={"Origin": DASHBOARD})
        assert response.status_code in (401, 405), (path, response.status_code)
        assert cors_headers(response)["access-control-allow-origin"] == DASHBOARD
    search = api.post("/search", json={"query": "x", "filters": {"user_id": "alice"}}, headers={"Origin": DASHBOARD})
    assert search.status_code == 200
    assert cors_headers(search)["access-control-allow-origin"] == DASHBOARD


def test_every_route_of_both_surfaces_answers_a_preflight(api: TestClient) -> None:
    routes = every_route()
    assert any(p.startswith("/v3/") for _m, p in routes) and any(p.startswith("/memories") for _m, p in routes)
    for method, path in routes:
        response = preflight(api, path, DASHBOARD, method)
        assert response.status_code == 200, (method, path, response.text)
        cors = cors_headers(response)
        assert cors["access-control-allow-origin"] == DASHBOARD, (method, path)
        assert method in cors["access-control-allow-methods"], (method, path)
        assert cors["access-control-allow-credentials"] == "true"
        allowed = cors["access-control-allow-headers"].lower()
        assert {"authorization", "content-type", "x-api-key"} <= set(allowed.replace(" ", "").split(","))
        assert response.headers["x-request-id"]


def test_the_platform_clients_headers_pass_a_preflight(api: TestClient) -> None:
    response = api.options(
        "/v3/memories/add/",
        headers={
            "Origin": OTHER_APP,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type,mem0-user-id,x-mem0-source,idempotency-key",
        },
    )
    assert response.status_code == 200
    assert cors_headers(response)["access-control-allow-origin"] == OTHER_APP


def test_preflights_are_not_in_the_request_log(api: TestClient, container: Container) -> None:
    for path in ("/memories", "/search", "/v3/memories/search/", "/nowhere"):
        preflight(api, path, DASHBOARD)
        preflight(api, path, STRANGER)
    api.get("/memories", params={"user_id": "alice"}, headers={"Origin": DASHBOARD})
    logged = [(e.method, e.path) for e in container.request_log.recent(200)]
    assert logged == [("GET", "/memories")]


# ---- any other origin -------------------------------------------------------------------------------------


@pytest.mark.parametrize("origin", [STRANGER, "http://localhost:3001", "https://localhost:3000", "null"])
def test_another_origin_gets_no_cors_header(api: TestClient, origin: str) -> None:
    response = api.get("/memories", params={"user_id": "alice"}, headers={"Origin": origin})
    assert response.status_code == 200  # the browser, not the server, keeps the page from reading it
    assert cors_headers(response) == {}
    assert "Origin" in response.headers["vary"]  # a cache must not give this answer to an allowed origin
    refused = preflight(api, "/memories", origin)
    assert refused.status_code == 405  # the API itself has no OPTIONS route
    assert cors_headers(refused) == {}


def test_a_call_without_an_origin_is_untouched(api: TestClient) -> None:
    response = api.get("/memories", params={"user_id": "alice"})
    assert response.status_code == 200
    assert cors_headers(response) == {}


# ---- the settings -----------------------------------------------------------------------------------------


def settings_from(monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    for name in ("DASHBOARD_URL", "MNEMO_DASHBOARD_URL", "MNEMO_CORS_ORIGINS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings()


def test_by_default_the_dashboard_of_mem0s_server_is_the_one_origin(monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings_from(monkeypatch).cors_allowed_origins == (DASHBOARD,)
    moved = settings_from(monkeypatch, DASHBOARD_URL="https://Dash.Example.com/")
    assert moved.cors_allowed_origins == ("https://dash.example.com",)  # as a browser sends it
    assert settings_from(monkeypatch, MNEMO_DASHBOARD_URL="").cors_allowed_origins == ()


@pytest.mark.parametrize(
    "listed",
    ["https://a.example, https://b.example:8443/", '["https://a.example", "https://b.example:8443"]'],
)
def test_more_origins_are_listed_beside_the_dashboard(monkeypatch: pytest.MonkeyPatch, listed: str) -> None:
    settings = settings_from(monkeypatch, MNEMO_CORS_ORIGINS=listed)
    assert settings.cors_allowed_origins == (DASHBOARD, "https://a.example", "https://b.example:8443")


@pytest.mark.parametrize("empty", ["", " ", "[]"])
def test_an_empty_origin_list_turns_cors_off(monkeypatch: pytest.MonkeyPatch, container: Container, empty: str) -> None:
    settings = settings_from(monkeypatch, MNEMO_CORS_ORIGINS=empty)
    assert settings.cors_allowed_origins == ()
    with TestClient(create_app(container, cors_origins=settings.cors_allowed_origins)) as client:
        assert cors_headers(client.get("/memories", params={"user_id": "a"}, headers={"Origin": DASHBOARD})) == {}
        refused = preflight(client, "/memories", DASHBOARD)
        assert cors_headers(refused) == {}


@pytest.mark.parametrize("bad", ["*", "https://dash.example.com/app", "dash.example.com", "ftp://x.example"])
def test_a_value_that_is_not_an_origin_is_refused_at_start(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    with pytest.raises(ValidationError, match="not a web origin"):
        settings_from(monkeypatch, MNEMO_CORS_ORIGINS=bad)
    with pytest.raises(ValidationError, match="not a web origin"):
        settings_from(monkeypatch, DASHBOARD_URL=bad)


# ---- the entry points pass the settings' origins -----------------------------------------------------------


def test_mnemo_serve_allows_the_configured_origins(
    monkeypatch: pytest.MonkeyPatch, container: Container, tmp_path: Any
) -> None:
    import mnemo.composition.container as composition
    from mnemo.entrypoints import http_server

    settings_from(monkeypatch, DASHBOARD_URL="https://dash.example.com", MNEMO_CORS_ORIGINS=OTHER_APP)
    monkeypatch.setenv("AUTH_DISABLED", "true")
    served: list[Any] = []
    monkeypatch.setattr(composition, "build_container", lambda _settings: _Unclosed(container))
    monkeypatch.setattr(http_server, "run", lambda config: served.append(config.app))
    args = argparse.Namespace(host=None, port=None, data_dir=tmp_path / "data")
    assert cli._serve(args) == 0
    with TestClient(served[0]) as client:
        for origin in ("https://dash.example.com", OTHER_APP):
            assert cors_headers(preflight(client, "/memories", origin))["access-control-allow-origin"] == origin
        assert cors_headers(preflight(client, "/memories", DASHBOARD)) == {}


def test_a_lambda_function_allows_the_origins_of_its_containers_settings(container: Container) -> None:
    settings = container.settings.model_copy(update={"dashboard_url": "https://dash.example.com"})
    function = HttpFunction(["memories"], LazyContainer(lambda: _with_settings(container, settings)))
    app = function.ready().app
    with TestClient(app) as client:
        ok = preflight(client, "/search", "https://dash.example.com")
        assert cors_headers(ok)["access-control-allow-origin"] == "https://dash.example.com"
        assert cors_headers(preflight(client, "/search", STRANGER)) == {}


class _Unclosed:
    """The test's container, which `mnemo serve` may not close (the fixture does)."""

    def __init__(self, container: Container) -> None:
        self._container = container

    def __getattr__(self, name: str) -> Any:
        return getattr(self._container, name)

    def close(self) -> None:
        pass


def _with_settings(container: Container, settings: Settings) -> Container:
    import dataclasses

    return dataclasses.replace(container, settings=settings)
