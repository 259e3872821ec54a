"""TypedRoute renders an endpoint's response model itself (no second trip to the thread pool): its answers are
byte for byte FastAPI's own, for every way a route can shape them."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel
from pydantic.json_schema import SkipJsonSchema

from mnemo.api.routing import DescribedRoute, TypedRoute


class Item(BaseModel):
    id: str
    note: str | None
    extra: str | SkipJsonSchema[None] = None  # sent only when set


class Page(BaseModel):
    count: int
    results: list[Item]


def routes(router: APIRouter) -> APIRouter:
    @router.get("/item")
    def item() -> Item:
        return Item(id="a", note=None)

    @router.get("/sparse", response_model_exclude_unset=True)
    def sparse() -> Item:
        return Item(id="b", note=None)

    @router.post("/created", status_code=201)
    def created() -> Page:
        return Page(count=1, results=[Item(id="c", note="x", extra="y")])

    @router.get("/either", response_model_exclude_unset=True)
    def either(paged: bool = False) -> list[Item] | Page:
        items = [Item(id="d", note="é ☕")]
        return Page(count=1, results=items) if paged else items

    @router.get("/raw", response_model=None)
    def raw() -> JSONResponse:
        return JSONResponse({"answered": "by the endpoint"}, status_code=202)

    return router


def serving(route_class: type[APIRoute]) -> tuple[FastAPI, TestClient]:
    app = FastAPI()
    app.include_router(routes(APIRouter(route_class=route_class)))
    return app, TestClient(app)


def test_typed_routes_answer_exactly_as_fastapi_does() -> None:
    (typed_app, typed), (plain_app, plain) = serving(TypedRoute), serving(DescribedRoute)
    calls = [("GET", "/item"), ("GET", "/sparse"), ("POST", "/created"), ("GET", "/either"), ("GET", "/raw")]
    calls.append(("GET", "/either?paged=true"))
    for method, path in calls:
        ours, theirs = typed.request(method, path), plain.request(method, path)
        assert (ours.status_code, ours.content) == (theirs.status_code, theirs.content), path
        assert ours.headers["content-type"] == theirs.headers["content-type"], path
    assert typed.get("/sparse").json() == {"id": "b", "note": None}  # unset keys stay out, set nulls stay in
    assert typed.post("/created").status_code == 201
    assert typed_app.openapi() == plain_app.openapi()  # the same description of every answer


def test_the_endpoint_is_wrapped_once_however_often_its_router_is_included() -> None:
    router = routes(APIRouter(route_class=TypedRoute))
    app = FastAPI()
    app.include_router(router)
    app.include_router(router, prefix="/again")
    with TestClient(app) as test:
        assert test.get("/again/item").json() == {"id": "a", "note": None, "extra": None}
    wrapped = {r.path: getattr(r.endpoint, "_mnemo_rendered", False) for r in router.routes if isinstance(r, APIRoute)}
    assert wrapped == {"/item": True, "/sparse": True, "/created": True, "/either": True, "/raw": False}


def test_described_routes_list_the_failures_before_the_endpoint() -> None:
    router = APIRouter(route_class=DescribedRoute)

    @router.get("/bare")
    def bare() -> Item:
        return Item(id="a", note=None)

    @router.post("/body")
    def body(item: Item, q: int = 0) -> Item:
        return item

    app = FastAPI()
    app.include_router(router)
    paths = app.openapi()["paths"]
    assert set(paths["/bare"]["get"]["responses"]) == {"200"}  # nothing to refuse before it runs
    described = paths["/body"]["post"]["responses"]
    assert set(described) == {"200", "400", "413", "422"}
    assert described["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ValidationErrorOut"
    }
