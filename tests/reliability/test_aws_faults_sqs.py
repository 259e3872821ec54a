"""SQS delivering the same ingest job more than once (at-least-once delivery, a message back after its visibility
timeout, two workers holding it at once): the job applies once. The worker's idempotency record (the jobs table)
answers a repeat with the first run's summary, and the event's status answers a repeat the record no longer
covers (an ended event is never run again): one memory, stable results, the LLM's usage counted once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.platform.conftest import Server, Tenant, new_tenant, serving
from tests.reliability.aws_fault_steps import USER, memory_ids, result_ids
from tests.support import moto_aws
from tests.support.aws_fault_backend import FaultyAws, faulty_aws
from tests.support.openai_server import OpenAIServer

EXTRACTION = '{"facts": [{"text": "Lives in Oslo", "sources": [0]}]}'


@pytest.fixture(scope="module")
def aws(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FaultyAws]:
    with faulty_aws(embedder, tmp_path_factory.mktemp("aws-sqs-faults"), drain=False) as backend:
        yield backend


@pytest.fixture(scope="module")
def server(aws: FaultyAws) -> Iterator[Server]:
    with serving(aws.container) as url:
        yield Server(url, aws.container, "aws")


@pytest.fixture
def llm(server: Server) -> Iterator[OpenAIServer]:
    """The deployment's LLM, scripted for one inferred add (the worker follows the provider settings)."""
    with OpenAIServer(embedding_dims=64) as fake:
        config = {"provider": "openai", "config": {"base_url": fake.base_url, "api_key": "sk-test", "model": "m"}}
        server.container.configuration.update({"llm": config})
        fake.reply(EXTRACTION)  # the user's first add: no memory to decide against
        try:
            yield fake
        finally:
            server.container.configuration.update({"llm": None})


def get(server: Server, tenant: Tenant, path: str) -> dict[str, Any]:
    answer = httpx.get(f"{server.url}{path}", headers=tenant.headers, timeout=30)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def queued_add(server: Server, tenant: Tenant) -> str:
    body = {"messages": "I live in Oslo.", "user_id": USER}
    answer = httpx.post(f"{server.url}/v3/memories/add/", json=body, headers=tenant.headers, timeout=30)
    assert answer.status_code == 200 and answer.json()["status"] == "PENDING", answer.text
    return str(answer.json()["event_id"])


def forget_the_job_records(aws: FaultyAws) -> None:
    """The worker's idempotency records expire (or a repeat comes after they did): drop them all."""
    dynamodb, table = moto_aws.client("dynamodb"), aws.stack.jobs_table
    for item in dynamodb.scan(TableName=table)["Items"]:
        dynamodb.delete_item(TableName=table, Key={"id": item["id"]})


def at_once(aws: FaultyAws, workers: list[Any], message: dict[str, Any]) -> list[dict[str, Any]]:
    """Each worker's answer to the same message, handed to all of them at the same moment."""
    start = threading.Barrier(len(workers))
    answers: list[dict[str, Any]] = []

    def run(worker: Any) -> None:
        start.wait()
        answers.append(aws.run_job(message, worker))

    threads = [threading.Thread(target=run, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_a_job_delivered_three_times_applies_once(aws: FaultyAws, server: Server, llm: OpenAIServer) -> None:
    # Given an acknowledged add, its job received from the queue
    tenant = new_tenant(server)
    event_id = queued_add(server, tenant)
    (message,) = aws.receive_jobs()
    # When the worker is handed the same message three times, the last after its idempotency record is gone
    answers = [aws.run_job(message), aws.run_job(message)]
    first = get(server, tenant, f"/v1/event/{event_id}/")
    forget_the_job_records(aws)
    answers.append(aws.run_job(message))
    # Then every delivery succeeded, and the add ran once: one memory, the event as the first run left it
    assert all(a["batchItemFailures"] == [] for a in answers)
    event = get(server, tenant, f"/v1/event/{event_id}/")
    assert event["status"] == "SUCCEEDED" and event == first
    assert memory_ids(server, tenant) == result_ids(event) and len(event["results"]) == 1
    # And the LLM was called for one run, its usage counted once in the event and the project's stats
    assert len(llm.chat_requests) == 1
    assert event["llm_usage"]["calls"] == 1
    assert get(server, tenant, "/v1/stats/")["llm_usage"] == event["llm_usage"]


def test_a_job_delivered_to_three_workers_at_once_applies_once(
    aws: FaultyAws, server: Server, llm: OpenAIServer
) -> None:
    # Given an acknowledged add, its job received from the queue
    tenant = new_tenant(server)
    event_id = queued_add(server, tenant)
    (message,) = aws.receive_jobs()
    # When three workers (three Lambda environments) are handed it at the same moment
    answers = at_once(aws, [aws.worker.entry, aws.another_worker(), aws.another_worker()], message)
    # Then one ran it; a worker that found it running reported the message failed (SQS brings it back)
    failed = [a for a in answers if a["batchItemFailures"]]
    assert len(answers) == 3 and len(failed) <= 2, answers
    # And that redelivery answers from the finished job, without running it again
    assert aws.run_job(message)["batchItemFailures"] == []
    event = get(server, tenant, f"/v1/event/{event_id}/")
    assert event["status"] == "SUCCEEDED"
    assert memory_ids(server, tenant) == result_ids(event) and len(event["results"]) == 1
    assert len(llm.chat_requests) == 1
    assert get(server, tenant, "/v1/stats/")["llm_usage"] == event["llm_usage"]
