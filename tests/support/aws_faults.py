"""Faults injected into the AWS SDK under moto, below botocore's retry loop.

moto answers every call at botocore's `before-send` event (its `BotocoreStubber`); while `injecting()` is active,
the stubber asks the injector first: while a fault is armed, a call of its service and operation is answered with
the fault's HTTP error and never reaches moto (a throttled write writes nothing). botocore then handles the answer
as it would AWS's own: its retry policy retries throttling errors (sleeping through `botocore.endpoint.time.sleep`,
which `injecting` records instead of sleeping), and a call whose attempts are spent raises its error. `Fault.hits`
counts the answers given, so a test proves how many attempts the SDK made.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import botocore.endpoint
import pytest
from botocore.awsrequest import AWSResponse
from moto.core.botocore_stubber import BotocoreStubber

JSON_PREFIXES = {"dynamodb": "com.amazonaws.dynamodb.v20120810", "sqs": "com.amazonaws.sqs"}
THROTTLES = ("ProvisionedThroughputExceededException", "ThrottlingException")


class _Raw:
    """What AWSResponse reads a body from."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_kwargs: Any) -> Iterator[bytes]:
        yield self._body


@dataclass
class Fault:
    """Calls of `service`'s `operations` (all when empty) that name `table` (any when None) answer HTTP `status`
    with error `code`: the first `times` attempts (every one when None, until `clear`), or with `calls` every
    attempt of the first `calls` calls (botocore's retries included: one `amz-sdk-invocation-id` each)."""

    service: str
    code: str
    operations: frozenset[str] = frozenset()
    times: int | None = None
    calls: int | None = None
    table: str | None = None
    status: int = 400
    hits: int = 0
    by_operation: dict[str, int] = field(default_factory=dict)
    failed_calls: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def clear(self) -> None:
        """No more failures."""
        with self._lock:
            self.times, self.calls = self.hits, None

    def take(self, service: str, operation: str, request: Any) -> bool:
        """Whether this attempt fails (and counts it)."""
        if not self._matches(service, operation, request):
            return False
        with self._lock:
            if not self._armed(request):
                return False
            self.hits += 1
            self.by_operation[operation] = self.by_operation.get(operation, 0) + 1
            return True

    def _matches(self, service: str, operation: str, request: Any) -> bool:
        if service != self.service or (self.operations and operation not in self.operations):
            return False
        body = request.body if isinstance(request.body, bytes) else str(request.body or "").encode()
        return self.table is None or f'"{self.table}"'.encode() in body

    def _armed(self, request: Any) -> bool:
        if self.calls is not None:
            invocation = str(request.headers.get("amz-sdk-invocation-id", ""))
            if invocation not in self.failed_calls and len(self.failed_calls) < self.calls:
                self.failed_calls.add(invocation)
            return invocation in self.failed_calls
        return self.times is None or self.hits < self.times

    def response(self, url: str) -> AWSResponse:
        """The error as the service's protocol writes it: JSON (DynamoDB, SQS) or the query protocol's XML (SNS)."""
        if self.service in JSON_PREFIXES:
            body = json.dumps({"__type": f"{JSON_PREFIXES[self.service]}#{self.code}", "message": "injected"})
            headers = {"x-amzn-RequestId": "injected-fault", "Content-Type": "application/x-amz-json-1.0"}
            if self.service == "sqs":
                headers["x-amzn-query-error"] = f"{self.code};Sender"
        else:
            body = (
                "<ErrorResponse><Error><Type>Receiver</Type>"
                f"<Code>{self.code}</Code><Message>injected</Message></Error>"
                "<RequestId>injected-fault</RequestId></ErrorResponse>"
            )
            headers = {"x-amzn-RequestId": "injected-fault", "Content-Type": "text/xml"}
        return AWSResponse(url, self.status, headers, _Raw(body.encode()))


@dataclass
class Injector:
    faults: list[Fault] = field(default_factory=list)
    slept: list[float] = field(default_factory=list)  # the backoffs botocore asked for between attempts

    def add(self, fault: Fault) -> Fault:
        self.faults.append(fault)
        return fault

    def throttle(self, code: str = THROTTLES[0], operations: frozenset[str] = frozenset(), **when: Any) -> Fault:
        """DynamoDB answers these operations (all when empty) with a throttling error (`when`: Fault's `times`,
        `calls`, `table`)."""
        return self.add(Fault("dynamodb", code, operations, **when))

    def clear(self) -> None:
        """Every fault cleared and forgotten."""
        for fault in self.faults:
            fault.clear()
        self.faults.clear()

    def before_send(self, request: Any, event_name: str = "", **_kwargs: Any) -> AWSResponse | None:
        """botocore's `before-send.<service>.<Operation>`: a fault's answer, or None (moto answers)."""
        _, service, operation = event_name.split(".", 2)
        for fault in self.faults:
            if fault.take(service, operation, request):
                return fault.response(request.url)
        return None


class _NoSleep:
    """botocore.endpoint's view of `time`: the retry backoff recorded, not slept."""

    def __init__(self, injector: Injector) -> None:
        self._injector = injector

    def sleep(self, seconds: float) -> None:
        self._injector.slept.append(seconds)

    def __getattr__(self, name: str) -> Any:
        import time

        return getattr(time, name)


@contextmanager
def injecting() -> Iterator[Injector]:
    """Faults for every call moto answers inside the block."""
    injector = Injector()
    original = BotocoreStubber.__call__

    def stub(self: BotocoreStubber, event_name: str, request: Any, **kwargs: Any) -> AWSResponse | None:
        if self.enabled:
            failed = injector.before_send(request, event_name=event_name)
            if failed is not None:
                return failed
        return original(self, event_name, request, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BotocoreStubber, "__call__", stub)
        patch.setattr(botocore.endpoint, "time", _NoSleep(injector))
        yield injector
