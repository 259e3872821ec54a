"""SNS failing the webhook fan-out's publish, and SQS redelivering a webhook delivery message, on the AWS backend
(moto, with the delivery function pumped as Lambda runs it): a change whose publish failed stays in its table's
outbox and is published by a later drain (the delivery function's schedule), and each event reaches a receiver
once per event id however often its message is delivered."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mnemo.adapters.dynamodb.outbox import memories_outbox
from tests.e2e.platform.conftest import Server, Tenant, new_tenant, serving
from tests.e2e.platform.test_webhooks import hooks_url, verify
from tests.reliability.aws_fault_steps import add, wait_until
from tests.support import moto_aws
from tests.support.aws_faults import Fault, Injector, injecting
from tests.support.webhook_aws import aws_webhook_backend
from tests.support.webhook_receiver import Receiver, receiving

PUBLISHES = frozenset({"Publish", "PublishBatch"})


@pytest.fixture(scope="module")
def faults() -> Iterator[Injector]:
    with injecting() as injector:
        yield injector


@pytest.fixture(scope="module")
def server(faults: Injector, embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("aws-sns-faults")
    with aws_webhook_backend(embedder, root) as container, serving(container) as url:
        yield Server(url, container, "aws")


@pytest.fixture
def tenant(server: Server, faults: Injector) -> Iterator[Tenant]:
    yield new_tenant(server, "hooks")
    faults.clear()


def create(server: Server, tenant: Tenant, url: str) -> dict[str, Any]:
    """A webhook of the tenant's project for memory_add (the first one made in a process takes a while)."""
    body = {"name": "hook", "url": url, "event_types": ["memory_add"]}
    answer = httpx.post(hooks_url(server, tenant), json=body, headers=tenant.headers, timeout=60)
    assert answer.status_code == 201, answer.text
    made: dict[str, Any] = answer.json()
    return made


def add_verbatim(server: Server, tenant: Tenant, text: str) -> str:
    answer = add(server, tenant, text, infer=False)
    assert answer.status_code == 200 and answer.json()["status"] == "SUCCEEDED", answer.text
    return str(answer.json()["results"][0]["id"])


def queue_is_empty(url: str) -> bool:
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    counts = moto_aws.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return all(int(counts[name]) == 0 for name in names)


def answered(receiver: Receiver, webhook_id: str) -> int:
    """How many requests with this webhook-id the receiver answered 2xx (repeats included)."""
    with receiver.lock:
        return sum(1 for r in receiver.received if r.webhook_id == webhook_id and 200 <= r.status < 300)


def test_a_change_whose_publish_failed_is_published_by_a_later_drain(
    server: Server, tenant: Tenant, faults: Injector
) -> None:
    outbox = memories_outbox(moto_aws.client("dynamodb"), os.environ["MNEMO_DYNAMODB_TABLE"])
    with receiving() as receiver:
        hook = create(server, tenant, receiver.url)
        # Given SNS failing every publish
        fault = faults.add(Fault("sns", "InternalError", PUBLISHES, status=500))
        # When a memory is added
        memory_id = add_verbatim(server, tenant, "I keep bees.")
        # Then the add succeeded, its publish failed, and its event waits in the outbox
        wait_until(lambda: fault.hits > 0, "a publish")
        assert outbox.pending(100) != []
        # And once SNS takes publishes again, a drain publishes it: the receiver gets it, once
        fault.clear()
        (got,) = receiver.wait_for_count(1)
        assert verify(got, hook["secret"])["event_details"]["id"] == memory_id
        wait_until(lambda: outbox.pending(100) == [], "the outbox to be drained")
        wait_until(lambda: queue_is_empty(os.environ["MNEMO_WEBHOOK_QUEUE_URL"]), "the delivery queue to empty")
        assert answered(receiver, got.webhook_id) == 1


def test_a_delivery_message_delivered_three_times_reaches_the_receiver_once(server: Server, tenant: Tenant) -> None:
    sqs, deliveries = moto_aws.client("sqs"), os.environ["MNEMO_WEBHOOK_QUEUE_URL"]
    seen = sqs.get_queue_url(QueueName="mnemo-test-events-seen")["QueueUrl"]  # every event the topic published
    with receiving() as receiver:
        hook = create(server, tenant, receiver.url)
        # Given a memory added, and its event delivered to the receiver
        memory_id = add_verbatim(server, tenant, "I collect stamps.")
        (got,) = receiver.wait_for_count(1)
        assert verify(got, hook["secret"])["event_details"]["id"] == memory_id
        published: list[dict[str, Any]] = []

        def topic_message() -> bool:
            reply = sqs.receive_message(QueueUrl=seen, MaxNumberOfMessages=10, MessageAttributeNames=["All"])
            published.extend(m for m in reply.get("Messages", []) if memory_id in m["Body"])
            return bool(published)

        wait_until(topic_message, "the topic's message of the event")
        # When SQS delivers the topic's message to the delivery function twice more
        for _ in range(2):
            sqs.send_message(
                QueueUrl=deliveries,
                MessageBody=published[0]["Body"],
                MessageAttributes=published[0]["MessageAttributes"],
            )
        wait_until(lambda: queue_is_empty(deliveries), "the delivery queue to empty")
        # Then the receiver was sent the event once
        assert answered(receiver, got.webhook_id) == 1
        assert len(receiver.delivered()) == 1
