"""The AWS composition under moto with faults: tests/support/aws_backend.py's stack and containers, built inside
`aws_faults.injecting()` (so every client the composition makes can be made to throttle or fail), with an
OpenSearch outage that can be switched on, and the ingest queue drained by a thread or left to the test (which
then receives messages and invokes the worker's handler itself, as often as it likes).

The outage: each index the containers get is the in-process stand-in while OpenSearch is up; while it is down,
every call goes to the real OpenSearch adapter (`OpenSearchMemoryIndex` over `HttpTransport`, its retries
included) talking to a cluster that answers 429 or 503, or refuses the connection. The memories the in-process
index was given stay in it, as OpenSearch keeps its documents through an outage.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import httpx
from moto import mock_aws

from mnemo.adapters.opensearch.memory_index import OpenSearchMemoryIndex
from mnemo.adapters.opensearch.transport import HttpTransport
from mnemo.composition.container import Container, build_container
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder
from mnemo.ports.memory_index import MemoryIndex
from tests.support import moto_aws
from tests.support.aws_backend import InProcessIndexes, QueueDrain, one_aws_call_at_a_time
from tests.support.aws_faults import Injector, injecting
from tests.support.lambda_aws import (
    INGEST_QUEUE_ARN,
    BedrockAsLocalCatalog,
    FakeLambdaContext,
    Stack,
    create_stack,
    environment,
    sqs_record,
)

REFUSED = 0  # the outage's "status" for a connection refused


@dataclass
class OpenSearchOutage:
    """Whether OpenSearch is up (`status` None) or answers `status` (429, 503; REFUSED: no connection)."""

    status: int | None = None
    requests: int = 0  # what the down cluster was sent, retries included
    _wrapped: dict[str, MemoryIndex] = field(default_factory=dict)

    def answer(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self.status == REFUSED:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        reason = "Too Many Requests" if self.status == 429 else "Service Unavailable"
        return httpx.Response(self.status or 503, json={"error": {"type": "unavailable", "reason": reason}})

    def down_index(self, name: str) -> OpenSearchMemoryIndex:
        transport = HttpTransport(
            "https://opensearch.invalid", http_transport=httpx.MockTransport(self.answer), sleep=lambda _s: None
        )
        return OpenSearchMemoryIndex(transport, name, sleep=lambda _s: None, facets=english())

    def wrap(self, index: MemoryIndex, name: str) -> MemoryIndex:
        if name not in self._wrapped:
            self._wrapped[name] = cast(MemoryIndex, _SwitchedIndex(self, index, name))
        return self._wrapped[name]


class _SwitchedIndex:
    """A MemoryIndex: the in-process one while OpenSearch is up, the real adapter facing the outage while down."""

    def __init__(self, outage: OpenSearchOutage, up: MemoryIndex, name: str) -> None:
        self._outage = outage
        self._up = up
        self._down = outage.down_index(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._up if self._outage.status is None else self._down, name)


@dataclass
class FaultyAws:
    container: Container  # the HTTP function's
    stack: Stack
    worker: ModuleType  # functions/ingest_worker/app.py, its container built like the HTTP one
    faults: Injector
    outage: OpenSearchOutage
    indexes: InProcessIndexes
    build: Callable[[bool], Container]  # a container as the functions build theirs (serves_http)
    workers: list[Any] = field(default_factory=list)  # more ingest workers, each its own Lambda environment

    def another_worker(self) -> Any:
        """A second (third, ...) ingest function environment: its own handler, batch processor and container,
        sharing the stack (the jobs table of the idempotency records among it) with the others."""
        from mnemo.entrypoints.lambda_worker import worker_entry

        entry = worker_entry()
        entry.container.reset(lambda: self.build(False))
        self.workers.append(entry)
        return entry

    def receive_jobs(self, count: int = 1) -> list[dict[str, Any]]:
        """The next `count` messages of the ingest queue (the test runs them), as received."""
        sqs = moto_aws.client("sqs")
        messages: list[dict[str, Any]] = []
        while len(messages) < count:
            reply = sqs.receive_message(QueueUrl=self.stack.queue_url, MaxNumberOfMessages=1, AttributeNames=["All"])
            messages.extend(reply.get("Messages", []))
        return messages

    def run_job(self, message: Mapping[str, Any], worker: Any = None) -> dict[str, Any]:
        """Invoke the ingest worker's handler (or `worker`'s, an `another_worker()`) with this one message, as
        Lambda does; its partial response."""
        event = {"Records": [sqs_record(message, INGEST_QUEUE_ARN)]}
        entry = worker if worker is not None else self.worker.entry
        response: dict[str, Any] = entry.handler(event, FakeLambdaContext(function_name="ingest"))
        return response


@contextmanager
def faulty_aws(
    embedder: Embedder, root: Path, *, drain: bool = True, env: Mapping[str, str] | None = None
) -> Iterator[FaultyAws]:
    """The HTTP container of MNEMO_BACKEND=aws and the ingest worker, with faults; `drain`: a thread runs the
    ingest queue's jobs (else the test does, with `receive_jobs` and `run_job`). `env`: more environment."""
    with injecting() as faults, mock_aws(), one_aws_call_at_a_time():
        stack = create_stack()
        with environment({**stack.env, "POWERTOOLS_METRICS_DISABLED": "true", **(env or {})}):
            indexes = InProcessIndexes(root, embedder.dimension)
            outage = OpenSearchOutage()
            catalog = BedrockAsLocalCatalog(embedder)

            def build(serves_http: bool) -> Container:
                return build_container(
                    catalog=catalog,
                    serves_http=serves_http,
                    index=outage.wrap(indexes.named("main"), "main"),
                    namespace_index=lambda name: outage.wrap(indexes.named(name), name),
                )

            worker = importlib.import_module("functions.ingest_worker.app")
            worker.entry.container.reset(lambda: build(False))
            container = build(True)
            drains = [QueueDrain(stack, worker)] if drain else []
            for thread in drains:
                thread.start()
            backend = FaultyAws(container, stack, worker, faults, outage, indexes, build)
            try:
                yield backend
            finally:
                for entry in backend.workers:
                    entry.container.reset()
                for thread in drains:
                    thread.stop()
                worker.entry.container.reset()
                container.close()
                indexes.close()
