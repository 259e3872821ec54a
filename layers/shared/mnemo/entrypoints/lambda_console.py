"""The web console as a Lambda function behind API Gateway (HTTP API, payload format 2.0): the console's Starlette
app mounted at /console, in Mangum, under the same logger, tracer and metrics as the API's functions.

It is shaped as the API's functions are (mnemo.entrypoints.lambda_http: the container built on the first invocation
and kept, a provider change followed before each later one, the recorded retrievals written behind, an answer too
large for Lambda refused with a 413) and reuses their `HttpFunction`, replacing only the app it serves: the console
over the container's platform services, the ones the platform function's routes use, on the same stores. The
console signs people in with its own accounts (in the platform's store), never with the API's JWT secret or admin
key: this function is given neither, and is not warned about their absence."""

from __future__ import annotations

from mangum import Mangum
from starlette.applications import Starlette

from mnemo.composition.container import LazyContainer, build_container
from mnemo.entrypoints.lambda_http import HttpEntry, HttpFunction, observed_entry


def _console_container() -> LazyContainer:
    return LazyContainer(lambda: build_container(serves_http=False))


class ConsoleFunction(HttpFunction):
    """The console's pages at /console (API Gateway sends it /console and /console/{proxy+})."""

    def __init__(self, container: LazyContainer | None = None) -> None:
        super().__init__((), container or _console_container())

    def ready(self) -> Mangum:
        if self._asgi is None:
            from mnemo.console.app import mount_console

            container = self.container.get()
            app = Starlette()
            mount_console(app, container)
            container.features.get()  # every page reads the platform: built now, not at the first page
            self._asgi = Mangum(app, lifespan="off")
        elif self.follow_configuration:
            self.container.get().configuration.refresh()
        return self._asgi


def console_entry() -> HttpEntry:
    """The console's Lambda entry: its handler logs, traces and counts each call by status class, and never logs or
    traces an event or a response (they carry passwords, session cookies and memories)."""
    return observed_entry(ConsoleFunction(), patch_modules=["botocore"])
