"""One route group as a Lambda function behind API Gateway (HTTP API, payload format 2.0): the group's FastAPI
app wrapped in Mangum under Powertools' logger, tracer and metrics, with the container built on the first
invocation and kept for the next ones. `functions/<group>/app.py` is one call of `http_entry`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, cast

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from fastapi import FastAPI
from mangum import Mangum

from mnemo.api.app import create_app
from mnemo.api.route_groups import uses_platform
from mnemo.composition.container import Container, LazyContainer

# Lambda returns at most 6 MB (6,291,456 bytes) of response; API Gateway would answer a larger one with a bare 502.
MAX_RESPONSE_BYTES = 6_000_000


def response_bytes(response: dict[str, Any]) -> int:
    """The response's size as the Python runtime sends it: JSON with every non-ASCII character escaped (six bytes
    each, twelve past U+FFFF), measured exactly only when the body is large enough to matter."""
    body = str(response.get("body", ""))
    if len(body) * 12 < MAX_RESPONSE_BYTES:  # an astral character escapes to twelve bytes
        return len(body)
    return len(json.dumps(response))


def too_large(response: dict[str, Any]) -> dict[str, Any]:
    """A 413 that says how to ask for less, in place of a response Lambda could not return."""
    size = response_bytes(response)
    detail = (
        f"The answer is {size:,} bytes, more than this service can return at once ({MAX_RESPONSE_BYTES:,}): "
        "ask for a smaller page (page_size) or narrower filters."
    )
    return {
        "statusCode": 413,
        "headers": {"content-type": "application/json"},
        "body": json.dumps({"detail": detail}),
        "isBase64Encoded": False,
    }


class HttpFunction:
    def __init__(
        self, groups: Iterable[str], container: LazyContainer | None = None, *, follow_configuration: bool = True
    ) -> None:
        """`follow_configuration`: before each invocation, pick up a provider change another execution environment
        made with POST /configure (one strongly consistent read); for the groups that embed or call the LLM."""
        self.groups = tuple(groups)
        self.container = container or LazyContainer()
        self.follow_configuration = follow_configuration
        self._asgi: Mangum | None = None

    @property
    def app(self) -> FastAPI | None:
        """The app inside, once built."""
        return None if self._asgi is None else cast(FastAPI, self._asgi.app)

    def ready(self) -> Mangum:
        """The ASGI adapter, building the container and the app if this is the first call: the container's
        platform features too when the groups' routes use them (else never: mnemo.services.lazy). The app imports
        each router on the first request it could answer (mnemo.api.lazy_routers)."""
        if self._asgi is None:
            container = self.container.get()
            settings = container.settings
            app = create_app(
                container,
                self.groups,
                cors_origins=settings.cors_allowed_origins,
                mcp_default_user_id=settings.mcp_default_user_id,
                lazy_routers=True,
            )
            if uses_platform(self.groups):
                container.features.get()  # built now, as the app's routes will use it, not at the first call
            self._asgi = Mangum(app, lifespan="off")
        elif self.follow_configuration:
            self.container.get().configuration.refresh()
        return self._asgi

    def reset(self, build: Callable[[], Container] | None = None) -> None:
        """Forget the app and the container (built by `build` from now on): the next call starts as a new
        execution environment."""
        self._asgi = None
        self.container.reset(build)

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        asgi = self.ready()
        with self._writes_behind():
            response: dict[str, Any] = asgi(event, context)
        if response_bytes(response) > MAX_RESPONSE_BYTES:
            return too_large(response)
        return response

    def _writes_behind(self) -> AbstractContextManager[None]:
        """The retrievals earlier invocations recorded (memory decay's reinforcements), written by a thread while
        this invocation runs and waited for before it returns: a search never waits for its own, and no thread is
        frozen mid-write between invocations (mnemo.services.access_buffer). Only the platform's projects record
        them: nothing to write while its features are not built."""
        container = self.container.get()
        if not container.features.built:
            return nullcontext()
        return container.platform.namespaces.access_buffer.writing_behind()


Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


@dataclass(frozen=True)
class HttpEntry:
    function: HttpFunction
    handler: Handler

    def warm(self) -> None:
        """Build the container and the app now, as the first invocation would."""
        self.function.ready()


def http_entry(groups: Iterable[str], *, follow_configuration: bool = True) -> HttpEntry:
    """The Lambda entry of route groups: its handler logs, traces and counts each call by status class, and never
    logs or traces an event or a response (they carry memories, passwords, tokens and keys)."""
    function = HttpFunction(groups, follow_configuration=follow_configuration)
    return observed_entry(function, patch_modules=["botocore", "httpx"])


def observed_entry(function: HttpFunction, *, patch_modules: list[str]) -> HttpEntry:
    """`function` under the logger, the tracer (patching `patch_modules`) and the per-status-class metrics that every
    HTTP function shares; no event or response is ever logged or traced."""
    logger = Logger()
    tracer = Tracer(patch_modules=patch_modules)
    metrics = Metrics()

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, log_event=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics(capture_cold_start_metric=True)
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        response = function(event, context)
        metrics.add_metric(name=f"Http{response['statusCode'] // 100}xx", unit=MetricUnit.Count, value=1)
        return response

    return HttpEntry(function, handler)
