"""The webhook delivery function, invoked as Lambda invokes it: functions/webhook_delivery/app.py's handler with
the samples of events/webhook_delivery/ and with the messages SNS really delivered to its queue, under moto.

The path of an event on AWS: a memory change through the platform app (the platform function's composition) puts
its webhook event in the memories table's outbox in the change's own transaction; right after the commit the
writing process publishes it to the SNS events topic and deletes it from the outbox; SNS delivers it to the
delivery queue (raw, filtered to the webhook event types); the handler makes the deliveries and sends them to a
real loopback receiver, signed (checked with the `standardwebhooks` package). A record the handler fails on is
reported alone, comes back, and after the queue's maxReceiveCount lands in the dead-letter queue. A receiver
that fails is retried: by a retry message delayed on the queue, or by the schedule, until delivered or, after the
last attempt of the schedule, dead-lettered (kept in the delivery log, redeliverable).
"""

from __future__ import annotations

import importlib
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from moto import mock_aws
from standardwebhooks import Webhook as StandardWebhook

from mnemo.adapters.aws.publisher import PublishError, SnsPublisher, delivered_event, outbound_event, topic_event
from mnemo.adapters.dynamodb.items import OUTBOX_PK
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.api.app import create_app
from mnemo.composition.aws_functions import build_aws_webhook_delivery
from mnemo.composition.container import Container, build_container
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope
from mnemo.domain.webhooks import OutboundEvent
from mnemo.services.platform.tenancy.callers import Bootstrapped
from mnemo.services.platform.webhooks.queue_delivery import RETRY_KIND
from tests.handlers.test_template import RESOURCES
from tests.support import moto_aws
from tests.support.aws_backend import InProcessIndexes, one_aws_call_at_a_time
from tests.support.lambda_aws import BedrockAsLocalCatalog, Stack, create_stack, environment, load_event, sqs_record
from tests.support.waits import seconds
from tests.support.webhook_aws import DeliveryPump, WebhookQueues, create_webhook_queues
from tests.support.webhook_receiver import Received, receiving

SAMPLE_EVENT_ID = "3f9b8c1e-2a4d-4e6f-8a1b-000000000005"  # the event of events/webhook_delivery/topic_*.json
SAMPLE_PROJECT = "proj_sample00000000000001"


@dataclass
class Deployed:
    stack: Stack
    queues: WebhookQueues
    api: Container  # the platform function's composition
    http: TestClient
    function: ModuleType
    pump: DeliveryPump
    tenants: list[Bootstrapped] = field(default_factory=list)

    def tenant(self) -> Bootstrapped:
        assert self.api.platform is not None
        made = self.api.platform.tenancy.bootstrap(f"hooks-{uuid.uuid4().hex[:10]}@example.com", "Hooks")
        self.tenants.append(made)
        return made

    def headers(self, tenant: Bootstrapped) -> dict[str, str]:
        return {"Authorization": f"Token {tenant.api_key}"}

    def create_hook(self, tenant: Bootstrapped, url: str, types: list[str] | None = None) -> dict[str, Any]:
        body = {"name": "hook", "url": url, "event_types": types or ["memory_add", "memory_delete"]}
        answer = self.http.post(
            f"/api/v1/webhooks/projects/{tenant.project.id}/", json=body, headers=self.headers(tenant)
        )
        assert answer.status_code == 201, answer.text
        made: dict[str, Any] = answer.json()
        return made

    def add(self, tenant: Bootstrapped, text: str) -> str:
        body = {"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": False}
        answer = self.http.post("/v3/memories/add/", json=body, headers=self.headers(tenant)).json()
        assert answer["status"] == "SUCCEEDED", answer
        return str(answer["results"][0]["id"])

    def receive_memory_events(self) -> list[dict[str, Any]]:
        """The queue's messages but the memory_categorize events each add makes beside its memory_add (its memory
        is filed under a category), which are handled at once (no webhook here subscribes to them)."""
        messages = self.pump.receive()
        filed = [m for m in messages if m["MessageAttributes"]["event_type"]["StringValue"] == "memory_categorize"]
        if filed:
            assert self.pump.deliver(filed) == {"batchItemFailures": []}
        return [m for m in messages if m not in filed]

    def deliveries(self, tenant: Bootstrapped, webhook_id: str, **params: str) -> dict[str, Any]:
        log: dict[str, Any] = self.http.get(
            f"/api/v1/webhooks/{webhook_id}/deliveries/", params=params, headers=self.headers(tenant)
        ).json()
        return log

    def outbox(self) -> list[dict[str, Any]]:
        reply = moto_aws.client("dynamodb").query(
            TableName=self.stack.memories_table,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": OUTBOX_PK}},
        )
        items: list[dict[str, Any]] = reply["Items"]
        return items

    def drain_queue(self, wait: float = 0.0) -> int:
        """Every message now on the delivery queue, through the handler (batches of ten)."""
        handled = 0
        deadline = time.monotonic() + wait
        while True:
            count = self.pump.pump()
            handled += count
            if not count and time.monotonic() >= deadline:
                return handled
            if not count:
                time.sleep(0.05)


@pytest.fixture(scope="module")
def deployed(embedder: LocalMiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    with mock_aws(), one_aws_call_at_a_time():
        stack = create_stack(ingest_queue=False)
        queues = create_webhook_queues(
            stack, max_receive_count=RESOURCES["WebhookDeliveryQueue"]["Properties"]["RedrivePolicy"]["maxReceiveCount"]
        )
        with environment({**stack.env, **queues.env}):
            indexes = InProcessIndexes(Path(tmp_path_factory.mktemp("indexes")), embedder.dimension)
            api = build_container(catalog=BedrockAsLocalCatalog(embedder), namespace_index=indexes.named)
            function = importlib.import_module("functions.webhook_delivery.app")
            function.entry.runtime.reset(build_aws_webhook_delivery)
            with TestClient(create_app(api)) as http:
                yield Deployed(stack, queues, api, http, function, DeliveryPump(queues, function))
            function.entry.runtime.reset()
            api.close()
            indexes.close()


def verify(received: Received, secret: str) -> dict[str, Any]:
    verified: dict[str, Any] = StandardWebhook(secret).verify(received.raw, received.headers)
    return verified


# ---- the whole path -----------------------------------------------------------------------------------------


def test_a_memory_change_goes_through_the_outbox_the_topic_and_the_queue_to_the_receiver_signed(
    deployed: Deployed,
) -> None:
    tenant = deployed.tenant()
    with receiving() as receiver:
        hook = deployed.create_hook(tenant, receiver.url, ["memory_add"])
        memory_id = deployed.add(tenant, "I drink green tea.")
        assert deployed.outbox() == []  # published at once after the commit, then forgotten

        [message] = deployed.receive_memory_events()  # what SNS delivered: the raw envelope, its type an attribute
        envelope = json.loads(message["Body"])
        assert envelope["type"] == "memory_add" and envelope["data"]["namespace"] == tenant.project.id
        assert message["MessageAttributes"]["event_type"]["StringValue"] == "memory_add"
        assert deployed.pump.deliver([message]) == {"batchItemFailures": []}

        [got] = receiver.wait_for_count(1)
        body = verify(got, hook["secret"])
        assert body["event_type"] == "memory_add" and body["event_id"] == envelope["id"]
        assert body["event_details"] == {"id": memory_id, "data": {"memory": "I drink green tea."}, "event": "ADD"}
        assert (body["project_id"], body["webhook_id"], body["sequence"]) == (tenant.project.id, hook["webhook_id"], 1)
        assert body["user_id"] == "alice" and body["occurred_at"] == envelope["occurred_at"]

        again = deployed.pump.invoke({"Records": [sqs_record(message, deployed.queues.arn)]})
        assert again == {"batchItemFailures": []}  # the same message received again: delivered once
        time.sleep(0.2)
        assert len(receiver.received) == 1
        log = deployed.deliveries(tenant, hook["webhook_id"])
        assert log["count"] == 1 and log["results"][0]["state"] == "delivered"


def test_an_event_no_webhook_subscribes_to_is_published_and_makes_no_delivery(deployed: Deployed) -> None:
    tenant = deployed.tenant()
    with receiving() as receiver:
        hook = deployed.create_hook(tenant, receiver.url, ["memory_delete"])
        deployed.add(tenant, "I collect stamps.")
        assert deployed.drain_queue() == 2  # its memory_add and memory_categorize
        time.sleep(0.2)
        assert receiver.received == [] and deployed.deliveries(tenant, hook["webhook_id"])["count"] == 0


# ---- the sample events --------------------------------------------------------------------------------------


def test_the_sample_events(deployed: Deployed) -> None:
    tenant = deployed.tenant()
    with receiving() as receiver:
        hook = deployed.create_hook(tenant, receiver.url, ["memory_add"])
        raw = load_event("webhook_delivery/topic_event", project_id=tenant.project.id)
        assert deployed.pump.invoke(raw) == {"batchItemFailures": []}
        [got] = receiver.wait_for_count(1)
        body = verify(got, hook["secret"])
        assert body["event_id"] == SAMPLE_EVENT_ID and body["event_details"]["data"] == {"memory": "Likes green tea."}

        wrapped = load_event("webhook_delivery/topic_notification", project_id=tenant.project.id)
        assert deployed.pump.invoke(wrapped) == {"batchItemFailures": []}  # the same event in SNS's wrapper
        retry = load_event("webhook_delivery/retry")  # of a webhook that does not exist: nothing to do
        assert deployed.pump.invoke(retry) == {"batchItemFailures": []}
        time.sleep(0.2)
        assert len(receiver.received) == 1
    assert deployed.pump.invoke(load_event("webhook_delivery/schedule")) == {
        "relayed": 0,
        "attempted": 0,
        "drained": True,
    }


# ---- failures of records: partial batches, the dead-letter queue --------------------------------------------


def test_a_record_that_fails_is_reported_alone(deployed: Deployed) -> None:
    tenant = deployed.tenant()
    with receiving() as receiver:
        hook = deployed.create_hook(tenant, receiver.url, ["memory_add"])
        deployed.add(tenant, "Fact one.")
        deployed.add(tenant, "Fact two.")
        good = deployed.receive_memory_events()
        assert len(good) == 2
        batch = load_event("webhook_delivery/topic_event", project_id=tenant.project.id)
        [sample] = batch["Records"]
        records = [
            {**sample, "messageId": "good-1", "body": good[0]["Body"]},
            {**sample, "messageId": "not-json", "body": "this is no event"},
            {**sample, "messageId": "no-event", "body": json.dumps({"id": "x", "type": "memory_add"})},
            {**sample, "messageId": "good-2", "body": good[1]["Body"]},
        ]
        response = deployed.pump.invoke({"Records": records})
        assert sorted(f["itemIdentifier"] for f in response["batchItemFailures"]) == ["no-event", "not-json"]
        got = receiver.wait_for_count(2)
        assert [verify(r, hook["secret"])["event_details"]["data"]["memory"] for r in got] == ["Fact one.", "Fact two."]


def test_a_record_that_keeps_failing_lands_in_the_dead_letter_queue(deployed: Deployed) -> None:
    deployed.drain_queue()
    sqs = moto_aws.client("sqs")
    sqs.send_message(QueueUrl=deployed.queues.url, MessageBody='{"kind": "webhook.retry"}')  # no webhook named
    received = 0
    for _ in range(deployed.queues.max_receive_count + 2):
        messages = deployed.pump.receive()
        if not messages:
            break
        received += 1
        [message] = messages
        assert int(message["Attributes"]["ApproximateReceiveCount"]) == received
        response = deployed.pump.deliver(messages)
        assert [f["itemIdentifier"] for f in response["batchItemFailures"]] == [message["MessageId"]]
    assert received == deployed.queues.max_receive_count
    dead = sqs.receive_message(QueueUrl=deployed.queues.dead_letter_url, MaxNumberOfMessages=10)["Messages"]
    assert [json.loads(m["Body"]) for m in dead] == [{"kind": RETRY_KIND}]
    sqs.delete_message(QueueUrl=deployed.queues.dead_letter_url, ReceiptHandle=dead[0]["ReceiptHandle"])


# ---- receivers that fail: retries, dead letters -------------------------------------------------------------


def attempts_of(deployed: Deployed, tenant: Bootstrapped, webhook_id: str) -> list[dict[str, Any]]:
    [delivery] = deployed.deliveries(tenant, webhook_id)["results"]
    found: list[dict[str, Any]] = delivery["attempts"]
    return found


def test_a_failed_attempt_is_retried_by_a_delayed_message_on_the_queue(deployed: Deployed) -> None:
    tenant = deployed.tenant()
    with receiving(script=[503]) as receiver:
        hook = deployed.create_hook(tenant, receiver.url, ["memory_add"])
        deployed.add(tenant, "I play chess.")
        [event] = deployed.receive_memory_events()
        deployed.pump.deliver([event])  # its first attempt fails, and schedules its retry
        assert [a["status_code"] for a in attempts_of(deployed, tenant, hook["webhook_id"])] == [503]
        # the retry message comes when the next attempt is due (0.2 s later, rounded up to a whole second; at
        # once when the attempt itself took longer), and makes it: no schedule here
        assert deployed.drain_queue(wait=2.0) >= 1
        [got] = receiver.wait_for_count(1)
        assert verify(got, hook["secret"])["event_details"]["data"]["memory"] == "I play chess."
        assert [a["status_code"] for a in attempts_of(deployed, tenant, hook["webhook_id"])] == [503, 200]


def test_a_failing_receiver_is_retried_by_the_schedule_until_delivered(deployed: Deployed) -> None:
    tenant = deployed.tenant()
    with receiving(script=[500, 502]) as receiver:
        hook = deployed.create_hook(tenant, receiver.url, ["memory_add"])
        deployed.add(tenant, "I swim on Sundays.")
        deployed.add(tenant, "I swim on Mondays.")
        assert deployed.drain_queue() >= 2  # the first event fails once; the second waits behind it
        for _ in range(round(seconds(40))):  # polls of 0.3 s: a quiet machine's 12 s, scaled
            time.sleep(0.3)  # past the next attempt (0.2 s, give or take 20%)
            deployed.pump.sweep()
            if len(receiver.delivered()) == 2:
                break
        got = receiver.delivered()
        texts = [verify(r, hook["secret"])["event_details"]["data"]["memory"] for r in got]
        assert texts == ["I swim on Sundays.", "I swim on Mondays."]  # in order, each once
        log = deployed.deliveries(tenant, hook["webhook_id"])["results"]
        assert [d["sequence"] for d in log] == [2, 1] and {d["state"] for d in log} == {"delivered"}
        assert [a["status_code"] for a in log[1]["attempts"]] == [500, 502, 200]
        deployed.drain_queue(wait=1.5)  # the retry messages scheduled meanwhile: stale, they send nothing
        assert len(receiver.received) == 4


def test_a_receiver_that_never_answers_2xx_is_dead_lettered_after_the_schedule_and_redeliverable(
    deployed: Deployed,
) -> None:
    tenant = deployed.tenant()
    with receiving(then=500) as receiver:
        hook = deployed.create_hook(tenant, receiver.url, ["memory_add"])
        deployed.add(tenant, "I play the cello.")
        deployed.drain_queue()
        for _ in range(round(seconds(40))):  # polls of 0.3 s: a quiet machine's 12 s, scaled
            if deployed.deliveries(tenant, hook["webhook_id"], status="dead")["count"]:
                break
            time.sleep(0.3)
            deployed.pump.sweep()
        [dead] = deployed.deliveries(tenant, hook["webhook_id"], status="dead")["results"]
        assert [a["status_code"] for a in dead["attempts"]] == [500] * 4  # the first, then the schedule's three
        assert dead["next_attempt_at"] is None
        assert deployed.pump.sweep()["attempted"] == 0  # kept, not retried
        assert len(receiver.received) == 4

        receiver.then = 200
        again = deployed.http.post(
            f"/api/v1/webhooks/{hook['webhook_id']}/deliveries/{dead['id']}/redeliver/",
            headers=deployed.headers(tenant),
        )
        assert again.status_code == 202
        assert deployed.pump.sweep()["attempted"] == 1  # a redelivery goes out with the next sweep
        [got] = receiver.delivered()
        assert got.webhook_id == dead["id"] and verify(got, hook["secret"])["event_type"] == "memory_add"


# ---- a process killed between its commit and its publish ----------------------------------------------------


def test_the_schedule_publishes_what_a_killed_process_left_in_the_outbox(deployed: Deployed) -> None:
    tenant = deployed.tenant()
    deployed.drain_queue(wait=1.5)  # stale retries of the tests before
    with receiving() as receiver:
        hook = deployed.create_hook(tenant, receiver.url, ["memory_add"])
        # a store whose process died right after its commit: the event is in the outbox, never published
        killed = DynamoMemoryStore(
            moto_aws.client("dynamodb"), deployed.stack.memories_table, namespace=tenant.project.id, outbox=True
        )
        memory = MemoryRecord.create("I grow tomatoes.", Scope(user_id="alice"))
        vectors = np.ones((1, 384), dtype=np.float32)
        killed.insert([memory], vectors, [HistoryEntry.of(Event.ADD, memory, None, memory.text)])
        assert len(deployed.outbox()) == 1
        assert deployed.pump.receive() == []

        assert deployed.pump.sweep() == {"relayed": 1, "attempted": 0, "drained": True}
        assert deployed.outbox() == []
        assert deployed.drain_queue() == 1
        [got] = receiver.wait_for_count(1)
        body = verify(got, hook["secret"])
        assert body["event_details"]["id"] == memory.id and body["project_id"] == tenant.project.id


# ---- the topic: an outbound event's round trip --------------------------------------------------------------


def test_an_outbound_event_comes_off_the_topic_exactly_as_it_went_on_raw_or_wrapped(deployed: Deployed) -> None:
    sqs, sns = moto_aws.client("sqs"), moto_aws.client("sns")
    queues = {}
    for raw in (True, False):
        url = sqs.create_queue(QueueName=f"mnemo-test-round-trip-{raw}")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        sns.subscribe(
            TopicArn=deployed.stack.topic_arn,
            Protocol="sqs",
            Endpoint=arn,
            Attributes={"RawMessageDelivery": str(raw).lower()},
        )
        queues[raw] = url
    payload = {
        "event_details": {"id": "m-1", "data": {"memory": 'Ça va? 🌍 "quoted"\n'}, "event": "ADD"},
        "run_id": None,
    }
    sent = [
        OutboundEvent(f"ev-{n}", "memory_add", "proj_x", payload, datetime(2026, 1, 2, 3, 4, 5, 678901, UTC), n + 1)
        for n in range(12)  # more than one PublishBatch
    ]
    SnsPublisher(sns, deployed.stack.topic_arn).publish_all([topic_event(e) for e in sent])
    for url in queues.values():
        bodies = []
        while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
            bodies += [m["Body"] for m in messages]
            for m in messages:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        got = sorted((outbound_event(delivered_event(b)) for b in bodies), key=lambda e: e.position)
        assert got == sent


class FailingSns:
    def __init__(self, failures: list[dict[str, Any]]) -> None:
        self.failures = failures
        self.batches: list[int] = []

    def publish_batch(self, **request: Any) -> dict[str, Any]:
        self.batches.append(len(request["PublishBatchRequestEntries"]))
        return {"Successful": [], "Failed": self.failures if len(self.batches) == 1 else []}


def test_publishing_skips_what_sns_refuses_as_the_senders_fault_and_raises_on_the_rest() -> None:
    events = [topic_event(OutboundEvent(f"ev-{n}", "memory_add", "p", {}, datetime.now(UTC))) for n in range(11)]
    refused = FailingSns([{"Id": "3", "Code": "InvalidParameter", "Message": "too long", "SenderFault": True}])
    SnsPublisher(refused, "arn:aws:sns:us-east-1:123456789012:t").publish_all(events)  # logged, not raised
    assert refused.batches == [10, 1]
    throttled = FailingSns([{"Id": "0", "Code": "Throttled", "Message": "slow down", "SenderFault": False}])
    with pytest.raises(PublishError, match="ev-0"):  # the relay keeps them in the outbox: published again later
        SnsPublisher(throttled, "arn:aws:sns:us-east-1:123456789012:t").publish_all(events)
    assert throttled.batches == [10, 1]  # every batch tried first
