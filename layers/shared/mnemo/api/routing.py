"""The route class of every router: a synchronous endpoint's answer is rendered to JSON by its response model in
the endpoint's own worker thread.

FastAPI validates a synchronous endpoint's return value against the response model in a second trip to its
thread pool, then serializes it: under load that trip costs far more CPU than rendering the answer does (the
figures are in the commit history). The endpoints here build their answers as instances of their response models
(mypy checks it), so validating them again proves nothing: `TypedRoute` renders the model with pydantic (honouring
`response_model_exclude_unset`, the route's status code) and hands FastAPI a finished Response. The route keeps its
response model, so /openapi.json describes the answer as before. An endpoint marked `inline_when_local` runs in the
event loop instead of a worker thread when its request allows it (mnemo.api.inline_work).

`DescribedRoute`, its base, completes the description with the failures FastAPI answers before any endpoint.

FastAPI's private API: FastAPI has no public hook to render a response model in the endpoint's own thread, nor to
describe responses that depend on the parameters a route has analysed, so this module uses what it does not
document. Each piece, and what a FastAPI that changed it would break:

- `fastapi.datastructures.DefaultPlaceholder`, the default of `response_model` when a route names none: a route
  given no model is told apart from one given None by it. Another default wraps no endpoint whose model comes from
  its return annotation: the answers stay right, the thread-pool trip comes back.
- `fastapi.dependencies.utils.get_typed_return_annotation(call)`: the model FastAPI itself infers from the return
  annotation, so that both render with the same one.
- `fastapi.dependencies.utils.get_flat_params(dependant)`: the path, query, header and cookie parameters of a route
  and of its dependencies; whether there are any decides whether the route's description lists a 422.
- `fastapi.utils.create_model_field(name=..., type_=..., mode="serialization")`: the response field of a status
  `DescribedRoute` adds, made as `APIRoute.__init__` makes those of `responses=`.
- What an `APIRoute` holds once made: `dependant`, `body_field`, `responses`, `response_fields`, `unique_id`.

A name gone fails the import of this module (no app starts); a signature or attribute changed fails the making of
every route. tests/unit/test_fastapi_private_api.py checks each piece against the installed FastAPI and names the
one that moved; tests/unit/test_typed_route.py checks that the answers and the description are FastAPI's own, byte
for byte. pyproject.toml pins FastAPI exactly and points at both tests: an upgrade runs them first.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from fastapi.datastructures import DefaultPlaceholder
from fastapi.dependencies.utils import get_flat_params, get_typed_return_annotation
from fastapi.routing import APIRoute
from fastapi.utils import create_model_field
from pydantic import TypeAdapter
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from mnemo.api.inline_work import in_loop_now, marked
from mnemo.api.responses import request_errors


class DescribedRoute(APIRoute):
    """A route whose /openapi.json entry also lists what any request may get before its endpoint runs
    (`request_errors`: the 422 of a parameter or body that does not fit, a body's 400 and 413). They replace what
    the route listed for the same statuses, so the description says what the server sends."""

    field_errors = False  # FieldErrorsRoute: a request that does not fit is a 400 keyed by field name

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        added = request_errors(
            parameters=bool(get_flat_params(self.dependant)),
            body=self.body_field is not None,
            field_errors=self.field_errors,
        )
        for code, response in added.items():
            self.responses[code] = response
            self.response_fields[code] = create_model_field(
                name=f"Response_{code}_{self.unique_id}", type_=response["model"], mode="serialization"
            )


class TypedRoute(DescribedRoute):
    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not inspect.iscoroutinefunction(endpoint) and not getattr(endpoint, _RENDERED, False):
            model = kwargs.get("response_model", _INFERRED)
            if isinstance(model, DefaultPlaceholder):  # FastAPI takes it from the return annotation; so do we
                model = get_typed_return_annotation(endpoint)
            if _is_model(model):
                endpoint = _rendered(endpoint, model, kwargs)
        super().__init__(path, endpoint, **kwargs)


_INFERRED = DefaultPlaceholder(None)  # no response_model given: the return annotation is the model
_RENDERED = "_mnemo_rendered"  # an endpoint already wrapped (a router included in an app makes its routes again)


def _is_model(model: Any) -> bool:
    """Whether the route answers JSON through a response model (not a Response it builds itself)."""
    return model is not None and not (isinstance(model, type) and issubclass(model, Response))


def _rendered(endpoint: Callable[..., Any], model: Any, options: dict[str, Any]) -> Callable[..., Any]:
    adapters: list[TypeAdapter[Any]] = []  # made at the first answer: a Lambda cold start builds none it won't use
    exclude_unset = bool(options.get("response_model_exclude_unset", False))
    status = options.get("status_code")
    status_code = status if isinstance(status, int) else 200

    @functools.wraps(endpoint)
    def render(*args: Any, **kwargs: Any) -> Any:
        answer = endpoint(*args, **kwargs)
        if isinstance(answer, Response):
            return answer
        if not adapters:
            adapters.append(TypeAdapter(model))
        body = adapters[0].dump_json(answer, by_alias=True, exclude_unset=exclude_unset)
        return Response(body, status_code=status_code, media_type="application/json")

    if marked(endpoint):
        return _inline_or_threaded(render)
    setattr(render, _RENDERED, True)
    return render


def _inline_or_threaded(render: Callable[..., Any]) -> Callable[..., Any]:
    """A marked endpoint (mnemo.api.inline_work): run in the event loop when the request's app says so, else in a
    worker thread as FastAPI runs a synchronous endpoint."""

    @functools.wraps(render)
    async def inline_or_threaded(*args: Any, **kwargs: Any) -> Any:
        if in_loop_now():
            return render(*args, **kwargs)
        return await run_in_threadpool(render, *args, **kwargs)

    setattr(inline_or_threaded, _RENDERED, True)
    return inline_or_threaded


class FieldErrorsRoute(TypedRoute):
    """A route that answers a request that does not fit (a field missing, of the wrong type, unknown) with a 400
    keyed by field name, each a list of messages, as Mem0's platform answers for webhooks
    (api/errors.py `field_errors`)."""

    field_errors = True
