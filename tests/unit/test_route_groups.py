"""The route groups (mnemo.api.route_groups): each group's routers named, not imported; a lazy app's routers
(mnemo.api.lazy_routers) imported on the first request whose path they could answer."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from mnemo.api.app import api_routes
from mnemo.api.lazy_routers import LazyRouters, LoadRoutersMiddleware
from mnemo.api.route_groups import GROUP_ROUTERS, ROUTER_PATHS, load_router, uses_platform
from tests.support.lambda_aws import ROOT


def test_the_app_groups_are_those_the_functions_serve() -> None:
    assert list(GROUP_ROUTERS) == ["memories", "configure", "auth", "admin", "platform", "mcp"]
    assert uses_platform(["platform"]) and uses_platform(["mcp", "memories"])
    assert not uses_platform(["memories", "configure", "auth", "admin"])


def test_importing_the_app_and_the_composition_root_imports_no_groups_routers() -> None:
    probe = (
        "import json, sys\n"
        "from mnemo.api.app import create_app\n"
        "from mnemo.composition.container import build_container\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('mnemo.api.selfhosted.', 'mnemo.api.platform',"
        " 'mnemo.api.mcp_server.route')) and '.responses' not in m and not m.endswith('.bodies'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )

    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_every_router_says_where_its_paths_begin_and_every_route_begins_so() -> None:
    references = [ref for group in GROUP_ROUTERS.values() for ref in group]
    assert sorted(references) == sorted(ROUTER_PATHS)
    for reference in references:
        for route in load_router(reference).routes:
            path = getattr(route, "path", "")
            assert path.startswith(ROUTER_PATHS[reference]), (reference, path)


def lazy_app(groups: list[str]) -> tuple[FastAPI, LazyRouters]:
    app = FastAPI(docs_url=None, redoc_url=None)
    routers = LazyRouters(app, [ref for group in groups for ref in GROUP_ROUTERS[group]])
    app.add_middleware(LoadRoutersMiddleware, routers=routers)
    return app, routers


def route_paths(app: FastAPI) -> list[str]:
    return [f"{method} {route.path}" for route in api_routes(app.routes) for method in sorted(route.methods or ())]


def test_given_lazy_routers_when_a_path_is_asked_then_only_the_routers_it_could_reach_are_included() -> None:
    app, routers = lazy_app(["memories", "platform"])
    assert routers.loaded() == []

    routers.load_for("/v1/memories/import/")

    assert routers.loaded() == ["mnemo.api.platform.memories:router", "mnemo.api.platform.imports:router"]
    assert "POST /v1/memories/import/" in route_paths(app) and "GET /memories" not in route_paths(app)

    routers.load_for("/nowhere")
    routers.load_for("/v1/memories/")  # already there: nothing twice
    assert route_paths(app).count("POST /v1/memories/import/") == 1
    assert len(routers.loaded()) == 2


def test_given_lazy_routers_when_loaded_in_any_order_then_routes_keep_the_order_of_an_app_built_at_once() -> None:
    eager, all_at_once = lazy_app(["memories", "platform"])
    all_at_once.load_all()
    app, routers = lazy_app(["memories", "platform"])

    for path in ("/api/v1/orgs/organizations/", "/v1/memories/", "/search", "/v1/ping/", "/v2/profiles/"):
        routers.load_for(path)
    routers.load_all()

    assert len(route_paths(app)) > 50 and route_paths(app) == route_paths(eager)


def test_given_a_lazy_app_when_requests_arrive_then_each_is_answered_by_the_router_it_needed() -> None:
    app, routers = lazy_app(["admin", "platform"])
    client = TestClient(app)

    assert client.get("/redoc").status_code == 200
    assert routers.loaded() == ["mnemo.api.explorer:router"]
    assert client.get("/nowhere").status_code == 404
    assert routers.loaded() == ["mnemo.api.explorer:router"]


def test_routers_without_path_beginnings_are_refused() -> None:
    with pytest.raises(ValueError, match=r"mnemo\.api\.nothing:router"):
        LazyRouters(FastAPI(), ["mnemo.api.nothing:router"])
