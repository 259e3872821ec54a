"""The ingest worker, invoked as Lambda invokes it: functions/ingest_worker/app.py's handler with SQS FIFO batches
(the sample events/ingest_worker/add_job.json, and messages really sent to the queue by a platform add), through
Powertools' batch processing and idempotency, the platform's add jobs and the DynamoDB adapters, under moto."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from moto import mock_aws

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.composition.container import Container, build_container
from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.language.en import english
from mnemo.ports.memory_index import MemoryIndex
from mnemo.services.commands import AddCommand, Message
from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.platform.tenancy.callers import Bootstrapped
from tests.support import moto_aws
from tests.support.lambda_aws import (
    BedrockAsLocalCatalog,
    FakeLambdaContext,
    Stack,
    create_stack,
    environment,
    load_event,
    sqs_record,
)


@dataclass
class Deployed:
    stack: Stack
    worker: ModuleType
    api: Container  # what queues the adds: the platform function's composition
    tenant: Bootstrapped

    @property
    def platform(self) -> PlatformFeatures:
        assert self.api.platform is not None
        return self.api.platform

    def run(self, event: dict[str, Any]) -> dict[str, Any]:
        response: dict[str, Any] = self.worker.handler(event, FakeLambdaContext(function_name="ingest_worker"))
        return response

    def queue(self, text: str, user: str) -> PlatformEvent:
        """An asynchronous platform add: its PENDING event stored, its job sent to the (moto) SQS queue."""
        command = AddCommand([Message("user", text)], Scope(user_id=user))
        return self.platform.project_memory.add(self.tenant.project, command)

    def received(self) -> list[dict[str, Any]]:
        sqs = moto_aws.client("sqs")
        reply = sqs.receive_message(QueueUrl=self.stack.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"])
        messages: list[dict[str, Any]] = reply.get("Messages", [])
        for message in messages:
            sqs.delete_message(QueueUrl=self.stack.queue_url, ReceiptHandle=message["ReceiptHandle"])
        return messages

    def texts(self, user: str) -> list[str]:
        service = self.platform.namespaces.memory_service(self.tenant.project.id)
        return sorted(r.text for r in service.get_all(f.parse({"user_id": user})))

    def event(self, event_id: str) -> PlatformEvent:
        return self.platform.events.get(self.tenant.project.id, event_id)


@pytest.fixture(scope="module")
def deployed(embedder: LocalMiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    with mock_aws():
        stack = create_stack()
        with environment(stack.env):
            root = Path(tmp_path_factory.mktemp("indexes"))
            databases: list[Database] = []
            indexes: dict[str, LocalMemoryIndex] = {}

            def index_for(namespace: str) -> MemoryIndex:  # OpenSearch, shared by the functions
                if namespace not in indexes:
                    databases.append(Database(root / f"{namespace}.sqlite3"))
                    indexes[namespace] = LocalMemoryIndex(databases[-1], embedder.dimension, facets=english())
                return indexes[namespace]

            catalog = BedrockAsLocalCatalog(embedder)
            worker = importlib.import_module("functions.ingest_worker.app")
            worker.entry.container.reset(
                lambda: build_container(catalog=catalog, serves_http=False, namespace_index=index_for)
            )
            api = build_container(catalog=catalog, namespace_index=index_for)
            assert api.platform is not None
            tenant = api.platform.tenancy.bootstrap("alice@acme.example", "Acme")
            yield Deployed(stack, worker, api, tenant)
            worker.entry.container.reset()
            api.close()
            for database in databases:
                database.close()


def record(message_id: str, group: str, body: dict[str, Any]) -> dict[str, Any]:
    """A message as received from the queue (with its attributes)."""
    return sqs_record(
        {
            "MessageId": message_id,
            "ReceiptHandle": f"handle-{message_id}",
            "Body": json.dumps(body),
            "Attributes": {"MessageGroupId": group, "ApproximateReceiveCount": "1", "SentTimestamp": "1741806238000"},
            "MD5OfBody": "0" * 32,
        }
    )


def test_given_the_sample_job_of_a_queued_add_when_the_worker_runs_then_the_add_is_stored(deployed: Deployed) -> None:
    queued = deployed.queue("I moved to Lisbon in the spring of 2024. I am allergic to peanuts.", "alice")
    [sent] = deployed.received()
    assert json.loads(sent["Body"]) == {
        "kind": "platform.add",
        "version": 1,
        "job_id": queued.id,
        "project_id": deployed.tenant.project.id,
        "event_id": queued.id,
    }  # ids only: no memory text travels through the queue
    assert sent["Attributes"]["MessageGroupId"] == f"{deployed.tenant.project.id}/user:alice"

    sample = load_event("ingest_worker/add_job", project_id=deployed.tenant.project.id, event_id=queued.id)
    assert deployed.run(sample) == {"batchItemFailures": []}
    done = deployed.event(queued.id)
    assert done.status is EventStatus.SUCCEEDED and done.attempts == 1
    assert deployed.texts("alice") == ["I am allergic to peanuts.", "I moved to Lisbon in the spring of 2024."]
    assert sorted(r["data"]["memory"] for r in done.results) == deployed.texts("alice")


def test_given_a_redelivered_job_then_it_is_not_run_twice(deployed: Deployed) -> None:
    jobs = moto_aws.client("dynamodb").scan(TableName=deployed.stack.jobs_table)["Items"]
    assert [item["status"]["S"] for item in jobs] == ["COMPLETED"]
    assert int(jobs[0]["expiration"]["N"]) > 0  # the jobs table's TTL attribute
    [event_id] = [json.loads(item["data"]["S"])["event_id"] for item in jobs]
    before = deployed.event(event_id)

    sample = load_event("ingest_worker/add_job", project_id=deployed.tenant.project.id, event_id=event_id)
    assert deployed.run(sample) == {"batchItemFailures": []}
    assert deployed.event(event_id) == before  # the recorded result was returned; nothing ran again
    assert deployed.texts("alice") == ["I am allergic to peanuts.", "I moved to Lisbon in the spring of 2024."]


def test_given_a_batch_with_a_bad_job_then_only_it_and_the_later_jobs_of_its_group_fail(deployed: Deployed) -> None:
    project = deployed.tenant.project.id
    dave = deployed.queue("My neighbour Dave keeps bees.", "dave")
    carol = deployed.queue("My friend Carol collects stamps.", "carol")
    deployed.received()
    bad = {"kind": "platform.add", "version": 1, "job_id": "job-bad", "project_id": project}  # no event id

    def job(event: PlatformEvent) -> dict[str, Any]:
        return {"kind": "platform.add", "version": 1, "job_id": event.id, "project_id": project, "event_id": event.id}

    batch = {
        "Records": [
            record("m1", f"{project}/user:carol", bad),
            record("m2", f"{project}/user:dave", job(dave)),
            record("m3", f"{project}/user:carol", job(carol)),
        ]
    }
    assert deployed.run(batch) == {"batchItemFailures": [{"itemIdentifier": "m1"}, {"itemIdentifier": "m3"}]}
    assert deployed.texts("dave") == ["My neighbour Dave keeps bees."]
    assert deployed.event(carol.id).status is EventStatus.PENDING  # waits behind the failed job of its group

    retried = deployed.run({"Records": [record("m3", f"{project}/user:carol", job(carol))]})
    assert retried == {"batchItemFailures": []}
    assert deployed.texts("carol") == ["My friend Carol collects stamps."]
    assert deployed.event(carol.id).status is EventStatus.SUCCEEDED


def test_given_an_add_really_sent_to_the_queue_when_the_worker_receives_it_then_it_runs(deployed: Deployed) -> None:
    """Send, receive, handle: the message as SQS hands it to the function, attributes and all."""
    queued = deployed.queue("My friend Erin plays the cello.", "erin")
    sqs = moto_aws.client("sqs")
    [message] = sqs.receive_message(QueueUrl=deployed.stack.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"])[
        "Messages"
    ]
    assert deployed.run({"Records": [sqs_record(message)]}) == {"batchItemFailures": []}
    sqs.delete_message(QueueUrl=deployed.stack.queue_url, ReceiptHandle=message["ReceiptHandle"])
    assert deployed.event(queued.id).status is EventStatus.SUCCEEDED
    assert deployed.texts("erin") == ["My friend Erin plays the cello."]
