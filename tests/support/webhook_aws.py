"""The webhook side of the AWS stack under moto, as template.yaml declares it: the delivery queue (with its
dead-letter queue) subscribed to the events topic (raw message delivery, the webhook event types only), the
environment the delivery function gets, and a pump that does what Lambda does for the delivery function: receive
a batch of its queue, invoke functions/webhook_delivery/app.py's handler, delete what it did not report failed;
and run its schedule.

`aws_webhook_backend` is tests/support/aws_backend.py's AWS composition (the platform's HTTP container, the ingest
worker draining its queue) with this beside it, the pump running in a thread."""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from moto import mock_aws

from mnemo.composition.aws_functions import build_aws_webhook_delivery
from mnemo.composition.container import Container, build_container
from mnemo.domain.webhooks import EVENT_TYPES
from mnemo.ports.embedder import Embedder
from tests.support import moto_aws
from tests.support.aws_backend import InProcessIndexes, QueueDrain, one_aws_call_at_a_time
from tests.support.lambda_aws import (
    BedrockAsLocalCatalog,
    FakeLambdaContext,
    Stack,
    create_stack,
    environment,
    sqs_record,
)
from tests.support.waits import seconds

RETRY_SCHEDULE = "0.2,0.2,0.2"  # four attempts in about half a second, then dead-lettered


@dataclass(frozen=True)
class WebhookQueues:
    url: str
    arn: str
    dead_letter_url: str
    max_receive_count: int
    env: dict[str, str] = field(default_factory=dict)


def create_webhook_queues(
    stack: Stack, *, visibility_timeout: int = 0, max_receive_count: int = 5, retry_schedule: str = RETRY_SCHEDULE
) -> WebhookQueues:
    """Inside an active mock_aws() with `stack` made: the delivery queue and its DLQ, subscribed to the topic; `env`
    is what the delivery function (and every function sending webhooks) adds to the stack's environment."""
    sqs, sns = moto_aws.client("sqs"), moto_aws.client("sns")
    dead = sqs.create_queue(QueueName="mnemo-test-webhook-delivery-dlq")["QueueUrl"]
    dead_arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(
        QueueName="mnemo-test-webhook-delivery",
        Attributes={
            "VisibilityTimeout": str(visibility_timeout),
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dead_arn, "maxReceiveCount": max_receive_count}),
        },
    )["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(
        TopicArn=stack.topic_arn,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RawMessageDelivery": "true", "FilterPolicy": json.dumps({"event_type": list(EVENT_TYPES)})},
    )
    env = {
        "MNEMO_WEBHOOK_QUEUE_URL": url,
        "MNEMO_WEBHOOK_ALLOW_PRIVATE_URLS": "true",  # the receivers are on loopback
        "MNEMO_WEBHOOK_RETRY_SCHEDULE": retry_schedule,
    }
    return WebhookQueues(url, arn, dead, max_receive_count, env)


class DeliveryPump:
    """Lambda's two triggers of the delivery function: its SQS event source (batches of up to 10, failures left
    on the queue) and its schedule."""

    def __init__(self, queues: WebhookQueues, function: ModuleType) -> None:
        self.queues = queues
        self.function = function
        self.responses: list[dict[str, Any]] = []

    def receive(self, wait: float = 0.0) -> list[dict[str, Any]]:
        reply = moto_aws.client("sqs").receive_message(
            QueueUrl=self.queues.url,
            MaxNumberOfMessages=10,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
            WaitTimeSeconds=int(wait),
        )
        messages: list[dict[str, Any]] = reply.get("Messages", [])
        return messages

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        response: dict[str, Any] = self.function.handler(event, FakeLambdaContext(function_name="webhook_delivery"))
        return response

    def deliver(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Invoke the handler with these received messages; delete those it did not report failed."""
        records = [sqs_record(m, self.queues.arn) for m in messages]
        response = self.invoke({"Records": records})
        self.responses.append(response)
        failed = {f["itemIdentifier"] for f in response["batchItemFailures"]}
        for message in messages:
            if message["MessageId"] not in failed:
                moto_aws.client("sqs").delete_message(QueueUrl=self.queues.url, ReceiptHandle=message["ReceiptHandle"])
        return response

    def pump(self) -> int:
        """One batch, if the queue has one; returns how many messages it held."""
        messages = self.receive()
        if messages:
            self.deliver(messages)
        return len(messages)

    def sweep(self) -> dict[str, Any]:
        """The schedule's invocation."""
        return self.invoke({"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}})


class PumpThread:
    """The pump in a thread: the queue drained continuously, the schedule every `sweep_every` seconds."""

    def __init__(self, pump: DeliveryPump, sweep_every: float = 0.25) -> None:
        self._pump = pump
        self._every = sweep_every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="webhook-delivery-pump", daemon=True)
        self.errors: list[BaseException] = []

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=seconds(30))

    def _run(self) -> None:
        import time

        next_sweep = 0.0
        while not self._stop.is_set():
            try:
                if time.monotonic() >= next_sweep:
                    self._pump.sweep()
                    next_sweep = time.monotonic() + self._every
                if not self._pump.pump():
                    self._stop.wait(0.02)
            except Exception as exc:  # kept for the test to see; the loop goes on
                self.errors.append(exc)
                self._stop.wait(0.1)


@contextmanager
def aws_webhook_backend(
    embedder: Embedder, root: Path, extra_env: Mapping[str, str] | None = None
) -> Iterator[Container]:
    """The HTTP container of MNEMO_BACKEND=aws with webhooks: the ingest worker draining its queues (ingest and
    profiles), and the delivery function pumped from its queue and its schedule. `extra_env`: more environment
    for every function."""
    with mock_aws(), one_aws_call_at_a_time():
        stack = create_stack()
        queues = create_webhook_queues(stack, visibility_timeout=5)
        quiet = {"POWERTOOLS_METRICS_DISABLED": "true"}  # the pump sweeps four times a second: no metric lines
        with environment({**stack.env, **queues.env, **quiet, **(extra_env or {})}):
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
            function = importlib.import_module("functions.webhook_delivery.app")
            function.entry.runtime.reset(build_aws_webhook_delivery)
            container = build(True)
            drains = [QueueDrain(stack, worker), QueueDrain(stack, worker, profiles=True)]
            pump = PumpThread(DeliveryPump(queues, function))
            for drain in drains:
                drain.start()
            pump.start()
            try:
                yield container
            finally:
                pump.stop()
                for drain in drains:
                    drain.stop()
                function.entry.runtime.reset()
                worker.entry.container.reset()
                container.close()
                indexes.close()
            for drain in drains:
                assert not drain.errors, drain.errors
            assert not pump.errors, pump.errors
