"""The AWS composition served in one test process, under moto: the container `build_container()` builds from the
environment template.yaml gives the functions (DynamoDB tables, the SQS FIFO ingest queue, SSM secrets), and a
thread that does what Lambda's SQS event source does for the ingest worker — receive a batch, invoke
functions/ingest_worker/app.py's handler, delete what it did not report failed.

No OpenSearch here: each index (the main one and one per project) is an in-process index, shared by the HTTP
container and the worker as OpenSearch is. moto's backends are not thread-safe, so every AWS call of the process
takes one lock while this backend runs (the server answers on several threads, the worker on its own).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from botocore.client import BaseClient
from moto import mock_aws

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.composition.container import Container, build_container
from mnemo.language.en import english
from mnemo.ports.embedder import Embedder
from mnemo.ports.memory_index import MemoryIndex
from tests.support import moto_aws
from tests.support.lambda_aws import (
    INGEST_QUEUE_ARN,
    PROFILE_QUEUE_ARN,
    BedrockAsLocalCatalog,
    FakeLambdaContext,
    Stack,
    create_stack,
    environment,
    sqs_record,
)
from tests.support.waits import seconds


class InProcessIndexes:
    """One LocalMemoryIndex per index name, each in its own SQLite file: the stand-in for OpenSearch."""

    def __init__(self, root: Path, dimension: int) -> None:
        self._root = root
        self._dimension = dimension
        self._open: dict[str, tuple[Database, LocalMemoryIndex]] = {}
        self._lock = threading.Lock()

    def named(self, name: str) -> MemoryIndex:
        with self._lock:
            if name not in self._open:
                database = Database(self._root / f"{name}.index.sqlite3")
                self._open[name] = (database, LocalMemoryIndex(database, self._dimension, facets=english()))
            return self._open[name][1]

    def close(self) -> None:
        with self._lock:
            for database, _index in self._open.values():
                database.close()
            self._open.clear()


class QueueActivity:
    """A count of the SQS calls that can make a message receivable (a send, a visibility change), with a condition
    to wait on: a drain whose queue was empty sleeps until the count moves instead of asking moto again and again
    (each empty receive costs as much CPU as a request's own calls, and holds the one lock meanwhile)."""

    WAKING = ("SendMessage", "SendMessageBatch", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch")

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._count = 0

    @property
    def count(self) -> int:
        with self._changed:
            return self._count

    def saw(self, operation_name: str) -> None:
        if operation_name in self.WAKING:
            with self._changed:
                self._count += 1
                self._changed.notify_all()

    def wait_past(self, count: int, timeout: float) -> None:
        """Until a waking call after the one `count` was read at, or `timeout` seconds (a delayed message or an
        expired visibility timeout becomes receivable with no call at all)."""
        with self._changed:
            self._changed.wait_for(lambda: self._count != count, timeout=timeout)


QUEUE_ACTIVITY = QueueActivity()


@contextmanager
def one_aws_call_at_a_time() -> Iterator[None]:
    original = BaseClient._make_api_call
    lock = threading.RLock()

    def serialized(self: BaseClient, operation_name: str, api_params: dict[str, Any]) -> Any:
        try:
            with lock:
                return original(self, operation_name, api_params)
        finally:
            QUEUE_ACTIVITY.saw(operation_name)

    BaseClient._make_api_call = serialized
    try:
        yield
    finally:
        BaseClient._make_api_call = original


class QueueDrain:
    """Lambda's SQS event source for the ingest worker, as a thread: batches of up to 5 of one of its queues (the
    ingest queue, or with `profiles` the profile queue), failures left on the queue (they come back after the
    visibility timeout, as on AWS)."""

    IDLE_POLL = 0.25  # an empty queue is asked again after a send or visibility change, or after this long

    def __init__(self, stack: Stack, worker: Any, *, profiles: bool = False) -> None:
        self._url = stack.profile_queue_url if profiles else stack.queue_url
        self._arn = PROFILE_QUEUE_ARN if profiles else INGEST_QUEUE_ARN
        self._worker = worker
        self._stop = threading.Event()
        name = "profile-queue-drain" if profiles else "ingest-queue-drain"
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.errors: list[BaseException] = []

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=seconds(30))

    def _run(self) -> None:
        sqs = moto_aws.client("sqs")
        while not self._stop.is_set():
            try:
                seen = QUEUE_ACTIVITY.count
                reply = sqs.receive_message(
                    QueueUrl=self._url, MaxNumberOfMessages=5, AttributeNames=["All"], WaitTimeSeconds=0
                )
                messages = reply.get("Messages", [])
                if not messages:
                    QUEUE_ACTIVITY.wait_past(seen, self.IDLE_POLL)
                    continue
                records = [sqs_record(message, self._arn) for message in messages]
                response = self._worker.handler({"Records": records}, FakeLambdaContext(function_name="ingest"))
                failed = {failure["itemIdentifier"] for failure in response["batchItemFailures"]}
                for message in messages:
                    if message["MessageId"] not in failed:
                        sqs.delete_message(QueueUrl=self._url, ReceiptHandle=message["ReceiptHandle"])
            except Exception as exc:  # kept for the test to see; the loop goes on
                self.errors.append(exc)
                self._stop.wait(0.1)


@contextmanager
def aws_backend(embedder: Embedder, root: Path) -> Iterator[Container]:
    """The HTTP container of MNEMO_BACKEND=aws, with the ingest worker draining its queue."""
    with mock_aws(), one_aws_call_at_a_time():
        stack = create_stack()
        with environment(stack.env):
            indexes = InProcessIndexes(root, embedder.dimension)
            catalog = BedrockAsLocalCatalog(embedder)

            def build(serves_http: bool) -> Container:
                return build_container(
                    catalog=catalog,
                    serves_http=serves_http,
                    index=indexes.named("main"),
                    namespace_index=indexes.named,
                )

            worker = importlib.import_module("functions.ingest_worker.app")
            worker.entry.container.reset(lambda: build(False))
            container = build(True)
            drains = [QueueDrain(stack, worker), QueueDrain(stack, worker, profiles=True)]
            for drain in drains:
                drain.start()
            try:
                yield container
            finally:
                for drain in drains:
                    drain.stop()
                worker.entry.container.reset()
                container.close()
                indexes.close()
            for drain in drains:
                assert not drain.errors, drain.errors
