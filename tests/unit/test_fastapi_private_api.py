"""The private FastAPI API mnemo.api.routing stands on (its module docstring says what each piece is for and what a
change would break), checked against the installed FastAPI: each failure names the piece that moved.

pyproject.toml pins FastAPI exactly because of it; before moving the pin, run this file and test_typed_route.py.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import fastapi
import pytest
from fastapi import APIRouter, FastAPI, Query
from fastapi.routing import APIRoute
from pydantic import BaseModel

ROUTING = "mnemo/api/routing.py"


def private(module: str, name: str) -> Any:
    """The private name, or a failure saying that this FastAPI no longer has it."""
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        found = None
    if found is None:
        pytest.fail(
            f"FastAPI {fastapi.__version__} has no {module}.{name}, which {ROUTING} imports (its docstring says why)."
        )
    return found


def parameters(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


class Answer(BaseModel):
    id: str


def route_of(path: str, endpoint: Any, **options: Any) -> APIRoute:
    router = APIRouter()
    router.add_api_route(path, endpoint, **options)
    made = router.routes[-1]
    assert isinstance(made, APIRoute)
    return made


def test_a_route_given_no_response_model_gets_a_default_placeholder() -> None:
    placeholder = private("fastapi.datastructures", "DefaultPlaceholder")
    defaults = {
        "APIRoute.__init__": inspect.signature(APIRoute.__init__).parameters["response_model"].default,
        "APIRouter.add_api_route": inspect.signature(APIRouter.add_api_route).parameters["response_model"].default,
        "APIRouter.get": inspect.signature(APIRouter.get).parameters["response_model"].default,
    }
    for where, default in defaults.items():
        assert isinstance(default, placeholder), (
            f"FastAPI {fastapi.__version__}: the default response_model of {where} is {default!r}, no longer a "
            f"DefaultPlaceholder: {ROUTING} TypedRoute would stop inferring models from return annotations."
        )


def test_the_return_annotation_is_read_as_fastapi_reads_it() -> None:
    typed_return = private("fastapi.dependencies.utils", "get_typed_return_annotation")
    assert parameters(typed_return) == ["call"], (
        f"FastAPI {fastapi.__version__} changed get_typed_return_annotation{inspect.signature(typed_return)}, "
        f"which {ROUTING} calls with the endpoint alone."
    )

    def annotated() -> Answer:  # a string annotation here (from __future__ import annotations), as in mnemo's routers
        return Answer(id="a")

    def bare():  # no return annotation, on purpose
        return None

    assert typed_return(annotated) is Answer, f"get_typed_return_annotation no longer resolves what {ROUTING} needs"
    assert typed_return(bare) is None, "get_typed_return_annotation no longer answers None without an annotation"


def test_the_flat_params_of_a_route_say_whether_it_has_any() -> None:
    flat_params = private("fastapi.dependencies.utils", "get_flat_params")
    assert parameters(flat_params) == ["dependant"], (
        f"FastAPI {fastapi.__version__} changed get_flat_params{inspect.signature(flat_params)}, which {ROUTING} "
        "calls with a route's dependant alone."
    )

    def bare() -> Answer:
        return Answer(id="a")

    def queried(q: int = Query(0)) -> Answer:
        return Answer(id=str(q))

    assert flat_params(route_of("/bare", bare).dependant) == []
    assert [p.name for p in flat_params(route_of("/queried", queried).dependant)] == ["q"]


def test_a_response_field_is_made_as_api_route_makes_its_own() -> None:
    model_field = private("fastapi.utils", "create_model_field")
    missing = {"name", "type_", "mode"} - set(parameters(model_field))
    assert not missing, (
        f"FastAPI {fastapi.__version__} changed create_model_field{inspect.signature(model_field)}: {ROUTING} passes "
        f"{sorted(missing)}."
    )
    made = model_field(name="Response_418_probe", type_=Answer, mode="serialization")
    assert made.name == "Response_418_probe"


def test_a_route_holds_what_described_route_reads_and_writes() -> None:
    def body(answer: Answer) -> Answer:
        return answer

    route = route_of("/body", body, methods=["POST"], responses={404: {"model": Answer}})
    held = {name: hasattr(route, name) for name in ("dependant", "body_field", "responses", "response_fields")}
    held["unique_id"] = isinstance(getattr(route, "unique_id", None), str)
    assert all(held.values()), (
        f"FastAPI {fastapi.__version__}: an APIRoute no longer holds {sorted(n for n, ok in held.items() if not ok)}, "
        f"which {ROUTING} DescribedRoute reads and writes."
    )
    assert route.body_field is not None
    assert set(route.response_fields) == {404}, "responses= no longer becomes response_fields keyed by status"
    app = FastAPI()
    app.router.routes.append(route)
    described = app.openapi()["paths"]["/body"]["post"]["responses"]
    assert "404" in described, "response_fields no longer reach /openapi.json"
