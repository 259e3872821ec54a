"""The ingestion worker, invoked as Lambda invokes it: functions/ingest_worker/app.py's handler with SQS FIFO
batches (the sample events/ingest_worker/add_job.json, and messages really sent to the queue by
IngestionService.submit), through Powertools' batch processing and idempotency, MemoryService and the DynamoDB
adapters, under moto. The topic's deliveries are read from a queue subscribed to it."""

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

from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.bootstrap import Container, bootstrap
from mnemo.domain import filters as f
from mnemo.domain.memory import Scope
from mnemo.services.commands import AddCommand, Message
from mnemo.services.ingestion import ADD_COMPLETED
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
    api: Container  # what submits jobs (the platform's add route will)

    def run(self, event: dict[str, Any]) -> dict[str, Any]:
        response: dict[str, Any] = self.worker.handler(event, FakeLambdaContext(function_name="ingest_worker"))
        return response

    def texts(self, user: str) -> list[str]:
        store = DynamoMemoryStore(moto_aws.client("dynamodb"), self.stack.memories_table)
        return sorted(r.text for r in store.find(f.parse({"user_id": user})))

    def published(self) -> list[dict[str, Any]]:
        sqs = moto_aws.client("sqs")
        seen = sqs.receive_message(QueueUrl=self.stack.events_url, MaxNumberOfMessages=10).get("Messages", [])
        for message in seen:
            sqs.delete_message(QueueUrl=self.stack.events_url, ReceiptHandle=message["ReceiptHandle"])
        return [json.loads(m["Body"]) for m in seen]


@pytest.fixture(scope="module")
def deployed(embedder: LocalMiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    with mock_aws():
        stack = create_stack()
        with environment(stack.env):
            index_db = Database(Path(tmp_path_factory.mktemp("index")) / "index.sqlite3")
            index = LocalMemoryIndex(index_db, embedder.dimension)
            catalog = BedrockAsLocalCatalog(embedder)
            worker = importlib.import_module("functions.ingest_worker.app")
            worker.container.reset(lambda: bootstrap(catalog=catalog, index=index, serves_http=False))
            api = bootstrap(catalog=catalog, index=index)
            yield Deployed(stack, worker, api)
            worker.container.reset()
            api.close()
            index_db.close()


def sqs_event(*messages: dict[str, Any]) -> dict[str, Any]:
    """A Lambda SQS event of messages as received from the queue (with their attributes)."""
    return {"Records": [sqs_record(m) for m in messages]}


def record(message_id: str, group: str, body: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(body)
    return {
        "MessageId": message_id,
        "ReceiptHandle": f"handle-{message_id}",
        "Body": text,
        "Attributes": {"MessageGroupId": group, "ApproximateReceiveCount": "1", "SentTimestamp": "1741806238000"},
        "MD5OfBody": "0" * 32,
    }


def job(job_id: str, user: str, *texts: str) -> dict[str, Any]:
    return {
        "kind": "memory.add",
        "version": 1,
        "job_id": job_id,
        "submitted_at": "2025-03-12T19:03:58.000000+00:00",
        "add": {"messages": [{"role": "user", "content": t} for t in texts], "user_id": user, "infer": False},
    }


def test_given_the_sample_job_when_the_worker_runs_then_its_memories_are_stored_and_announced(
    deployed: Deployed,
) -> None:
    response = deployed.run(load_event("ingest_worker/add_job"))
    assert response == {"batchItemFailures": []}
    assert deployed.texts("alice") == ["I am allergic to peanuts.", "I moved to Lisbon last spring."]
    store = DynamoMemoryStore(moto_aws.client("dynamodb"), deployed.stack.memories_table)
    stored = {r.id: r for r in store.find(f.parse({"user_id": "alice"}))}
    assert {r.metadata["source"] for r in stored.values()} == {"queue"}

    [event] = deployed.published()
    assert event["type"] == ADD_COMPLETED
    assert event["data"]["job_id"] == "5f0c1a2b-3d4e-4f60-8a9b-0c1d2e3f4a5b"
    assert sorted(r["id"] for r in event["data"]["results"]) == sorted(stored)
    assert {r["event"] for r in event["data"]["results"]} == {"ADD"}
    assert "memory" not in json.dumps(event["data"]["results"])  # ids and events, never the text


def test_given_a_redelivered_job_then_it_is_not_applied_twice(deployed: Deployed) -> None:
    jobs = moto_aws.client("dynamodb").scan(TableName=deployed.stack.jobs_table)["Items"]
    assert [item["status"]["S"] for item in jobs] == ["COMPLETED"]
    assert int(jobs[0]["expiration"]["N"]) > 0  # the jobs table's TTL attribute

    response = deployed.run(load_event("ingest_worker/add_job"))
    assert response == {"batchItemFailures": []}
    assert deployed.texts("alice") == ["I am allergic to peanuts.", "I moved to Lisbon last spring."]
    assert deployed.published() == []  # the recorded result was returned; nothing ran again


def test_given_an_add_submitted_to_the_queue_then_the_worker_stores_it(deployed: Deployed) -> None:
    command = AddCommand(
        messages=[Message("user", "I prefer green tea in the morning.")], scope=Scope(user_id="bob"), infer=False
    )
    job_id = deployed.api.ingestion.submit(command)
    sqs = moto_aws.client("sqs")
    [message] = sqs.receive_message(QueueUrl=deployed.stack.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"])[
        "Messages"
    ]
    assert message["Attributes"]["MessageGroupId"] == "user:bob"
    assert json.loads(message["Body"])["job_id"] == job_id

    assert deployed.run(sqs_event(message)) == {"batchItemFailures": []}
    assert deployed.texts("bob") == ["I prefer green tea in the morning."]
    [event] = deployed.published()
    assert (event["data"]["job_id"], [r["event"] for r in event["data"]["results"]]) == (job_id, ["ADD"])


def test_given_a_batch_with_a_bad_job_then_only_it_and_the_later_jobs_of_its_group_fail(deployed: Deployed) -> None:
    bad = job("job-bad", "carol")  # no messages: not a valid add
    batch = sqs_event(
        record("m1", "user:carol", bad),
        record("m2", "user:dave", job("job-dave", "dave", "Dave keeps bees.")),
        record("m3", "user:carol", job("job-carol", "carol", "Carol collects stamps.")),
    )
    response = deployed.run(batch)
    assert response == {"batchItemFailures": [{"itemIdentifier": "m1"}, {"itemIdentifier": "m3"}]}
    assert deployed.texts("dave") == ["Dave keeps bees."]
    assert deployed.texts("carol") == []  # waits behind the failed job of its group, in order
    assert [e["data"]["job_id"] for e in deployed.published()] == ["job-dave"]

    retried = deployed.run(sqs_event(record("m3", "user:carol", job("job-carol", "carol", "Carol collects stamps."))))
    assert retried == {"batchItemFailures": []}
    assert deployed.texts("carol") == ["Carol collects stamps."]
