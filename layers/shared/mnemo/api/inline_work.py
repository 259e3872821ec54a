"""The memory read routes' work run in the event loop, where that costs less than a worker thread and blocks no one.

FastAPI runs a synchronous endpoint in a worker thread: the event loop hands it over, the thread takes the GIL, and
the answer comes back through the loop's self-pipe. In a process kept on one CPU of its own (`mnemo serve --workers`
with pinned workers), that thread cannot run beside the loop anyway, so the hand-off buys nothing and costs CPU
(the performance log, docs/benchmarks/log.md, has what it saved).

Only an endpoint marked `inline_when_local` may run in the loop, and only while the request's app says so
(`InlineWorkMiddleware`, which `create_app(inline_work=True)` installs; `mnemo serve` asks for it in a process on
one CPU: mnemo.entrypoints.http_workers): every provider runs in this process (the local embedder, no LLM), so
that the work waits on no network.
The marked endpoints are the reads (search, list, get): a read of SQLite in WAL mode waits on no other process. A
write does (the other workers' write lock): an add in the loop stopped every request of its process while it waited,
and adds gained nothing, so writes stay in threads. Anything else (an LLM
configured by `/configure`, a remote embedder, every other route) runs in a worker thread, as before: a call that
waits on the network must not stop the loop's other requests.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from starlette.types import ASGIApp, Receive, Scope, Send

from mnemo.services.providers import ProviderSet

_MARK = "_mnemo_inline_when_local"
_DECIDE: ContextVar[Callable[[], bool] | None] = ContextVar("mnemo_inline_work", default=None)

F = TypeVar("F", bound=Callable[..., Any])


def inline_when_local(endpoint: F) -> F:
    """Mark a synchronous endpoint whose work is local when the providers are (reads of the store, the query's
    embedding) and waits on no other process: it may run in the event loop (mnemo.api.routing.TypedRoute)."""
    setattr(endpoint, _MARK, True)
    return endpoint


def marked(endpoint: Callable[..., Any]) -> bool:
    return bool(getattr(endpoint, _MARK, False))


def in_loop_now() -> bool:
    """Whether a marked endpoint runs in the event loop for the request under way."""
    decide = _DECIDE.get()
    return decide is not None and decide()


def runs_in_process(providers: ProviderSet) -> bool:
    """No provider of the set waits on the network: no LLM, and an embedder that says it runs in this process."""
    return providers.llm is None and bool(getattr(providers.embedder, "runs_in_process", False))


def enabled(setting: str, *, on_one_cpu: bool) -> bool:
    """The setting `http_inline`: "true" always, "false" never, "auto" when the process is on one CPU."""
    return setting == "true" or (setting == "auto" and on_one_cpu)


class InlineWorkMiddleware:
    """Tells the marked endpoints of each request whether to run in the loop: `decide()`, asked when one runs."""

    def __init__(self, app: ASGIApp, decide: Callable[[], bool]) -> None:
        self.app = app
        self.decide = decide

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = _DECIDE.set(self.decide)
        try:
            await self.app(scope, receive, send)
        finally:
            _DECIDE.reset(token)
