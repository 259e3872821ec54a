"""The memory read routes run in the event loop only when marked, and only while their app's `decide` says so
(mnemo.api.inline_work); every other case runs in a worker thread, as FastAPI runs a synchronous endpoint."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel

from mnemo.api import inline_work
from mnemo.api.errors import install_error_handlers
from mnemo.api.inline_work import InlineWorkMiddleware, inline_when_local, runs_in_process
from mnemo.api.routing import TypedRoute
from mnemo.errors import NotFoundError
from mnemo.services.providers import ProviderSet


class Where(BaseModel):
    in_loop: bool
    thread: str
    echoed: str


def _in_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def app_with(decide: Callable[[], bool] | None) -> TestClient:
    router = APIRouter(route_class=TypedRoute)

    @router.post("/marked")
    @inline_when_local
    def marked_route(text: str) -> Where:
        return Where(in_loop=_in_loop(), thread=threading.current_thread().name, echoed=text)

    @router.post("/plain")
    def plain_route(text: str) -> Where:
        return Where(in_loop=_in_loop(), thread=threading.current_thread().name, echoed=text)

    @router.get("/missing")
    @inline_when_local
    def missing() -> Where:
        raise NotFoundError("Memory not found.")

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router)
    if decide is not None:
        app.add_middleware(InlineWorkMiddleware, decide=decide)
    return TestClient(app)


def test_a_marked_endpoint_runs_in_the_event_loop_while_its_app_decides_so() -> None:
    with app_with(lambda: True) as client:
        answer = client.post("/marked", params={"text": "bees"}).json()
        assert answer == {"in_loop": True, "thread": answer["thread"], "echoed": "bees"}
        assert client.post("/plain", params={"text": "bees"}).json()["in_loop"] is False


@pytest.mark.parametrize("decide", [None, lambda: False])
def test_a_marked_endpoint_runs_in_a_worker_thread_otherwise(decide: Callable[[], bool] | None) -> None:
    with app_with(decide) as client:
        answer = client.post("/marked", params={"text": "hives"}).json()
        assert answer["in_loop"] is False and answer["echoed"] == "hives"


def test_the_decision_is_asked_at_each_request() -> None:
    """`/configure` may give the process an LLM between two requests: the next one runs in a thread."""
    answers = iter([True, False, True])
    with app_with(lambda: next(answers)) as client:
        assert [client.post("/marked", params={"text": "x"}).json()["in_loop"] for _ in range(3)] == [True, False, True]


def test_a_typed_error_raised_in_the_loop_is_answered_as_in_a_thread() -> None:
    for decide in (lambda: True, lambda: False):
        with app_with(decide) as client:
            response = client.get("/missing")
            assert response.status_code == 404
            assert "Memory not found." in response.text


class _Local:
    runs_in_process = True


class _Remote:
    pass


def test_only_a_provider_set_that_waits_on_no_network_runs_in_the_loop() -> None:
    local: Any = _Local()
    remote: Any = _Remote()
    llm: Any = object()
    assert runs_in_process(ProviderSet(embedder=local))
    assert not runs_in_process(ProviderSet(embedder=local, llm=llm))
    assert not runs_in_process(ProviderSet(embedder=remote))


def test_the_default_embedder_says_it_runs_in_process() -> None:
    from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder

    assert LocalMiniLMEmbedder.runs_in_process is True


@pytest.mark.parametrize(
    ("setting", "on_one_cpu", "expected"),
    [("auto", True, True), ("auto", False, False), ("true", False, True), ("false", True, False)],
)
def test_the_setting_turns_it_on_for_a_process_on_one_cpu_by_default(
    setting: str, on_one_cpu: bool, expected: bool
) -> None:
    assert inline_work.enabled(setting, on_one_cpu=on_one_cpu) is expected


def test_the_read_routes_of_both_surfaces_are_marked_and_no_others() -> None:
    from mnemo.api.route_groups import GROUP_ROUTERS, load_routers

    marked = sorted(
        f"{method} {route.path}"
        for routers in map(load_routers, GROUP_ROUTERS.values())
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute) and inline_work.marked(route.endpoint)
        for method in sorted(route.methods or ())
    )
    assert marked == sorted(
        [
            "GET /memories",
            "GET /memories/{memory_id}",
            "POST /search",
            "POST /v1/memories/search/",
            "POST /v2/memories/search/",
            "POST /v3/memories/search/",
            "GET /v1/memories/",
            "POST /v2/memories/",
            "POST /v3/memories/",
            "GET /v1/memories/{memory_id:memory_id}/",
        ]
    )
