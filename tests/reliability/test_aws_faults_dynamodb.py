"""DynamoDB throttling on the AWS backend (moto, with throttling answers injected below botocore's retry loop).

Throttles the SDK's retries absorb are invisible to the caller (the fault count proves the retries); throttling
that outlasts them answers 503 with Retry-After, never 500; and an add acknowledged as PENDING is never lost when
the ingest worker's writes are throttled: its event goes back to PENDING, and the memory appears once the
throttling stops."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.platform.conftest import Server, new_tenant, serving, wait_for_event
from tests.reliability.aws_fault_steps import add, memory_ids, result_ids, search
from tests.support.aws_fault_backend import FaultyAws, faulty_aws
from tests.support.aws_faults import THROTTLES

WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})
READS = frozenset({"GetItem", "Query", "BatchGetItem"})


@pytest.fixture(scope="module")
def aws(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FaultyAws]:
    root = tmp_path_factory.mktemp("aws-dynamodb-faults")
    with faulty_aws(embedder, root, env={"MNEMO_JOB_RETRY_SECONDS": "0"}) as backend:
        yield backend


@pytest.fixture(scope="module")
def server(aws: FaultyAws) -> Iterator[Server]:
    with serving(aws.container) as url:
        yield Server(url, aws.container, "aws")


@pytest.fixture(autouse=True)
def no_fault_left(aws: FaultyAws) -> Iterator[None]:
    yield
    aws.faults.clear()


@pytest.mark.parametrize("code", THROTTLES)
def test_throttles_the_sdk_retries_absorb_are_invisible(aws: FaultyAws, server: Server, code: str) -> None:
    # Given a tenant, and DynamoDB throttling the next two reads and the next two writes
    tenant = new_tenant(server)
    reads = aws.faults.throttle(code, READS, times=2)
    writes = aws.faults.throttle(code, WRITES, times=2)
    backoffs = len(aws.faults.slept)
    # When an add is sent
    answer = add(server, tenant, "I moved to Porto in the autumn.")
    # Then it is acknowledged, after botocore retried each throttled attempt (backing off before each)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "PENDING"
    assert reads.hits == 2
    event = wait_for_event(server, tenant, answer.json()["event_id"])
    assert writes.hits == 2
    assert len(aws.faults.slept) - backoffs >= 4
    # And the add ran once: one memory
    assert event["status"] == "SUCCEEDED", event
    assert memory_ids(server, tenant) == result_ids(event) and len(event["results"]) == 1


@pytest.mark.parametrize("code", THROTTLES)
def test_throttling_past_the_retries_is_a_503_with_retry_after(aws: FaultyAws, server: Server, code: str) -> None:
    # Given a tenant, and DynamoDB throttling every call
    tenant = new_tenant(server)
    fault = aws.faults.throttle(code)
    # When an add and a search are sent
    added, found = add(server, tenant, "I keep bees."), search(server, tenant, "bees")
    # Then each is a 503 that says the database is busy and when to retry, never a 500
    for answer in (added, found):
        assert answer.status_code == 503, answer.text
        assert answer.headers["retry-after"] == "1"
        assert "database is busy" in answer.json()["detail"]
    assert fault.hits > 2  # every attempt botocore made, throttled
    # And once the throttling stops, the same add goes through
    fault.clear()
    again = add(server, tenant, "I keep bees.")
    assert again.status_code == 200, again.text
    assert wait_for_event(server, tenant, again.json()["event_id"])["status"] == "SUCCEEDED"


def test_an_acknowledged_add_survives_a_worker_throttled_past_its_retries(aws: FaultyAws, server: Server) -> None:
    # Given a tenant, and the memories table refusing two whole write calls (every attempt of each)
    tenant = new_tenant(server)
    fault = aws.faults.throttle(THROTTLES[1], WRITES, calls=2, table=aws.stack.memories_table)
    # When an add is acknowledged
    answer = add(server, tenant, "My sister Ana lives in Lisbon.")
    assert answer.status_code == 200, answer.text
    # Then the worker's first attempts fail on the throttled writes, the job comes back, and the add succeeds
    event = wait_for_event(server, tenant, answer.json()["event_id"])
    assert event["status"] == "SUCCEEDED", (event, fault)
    # And its memory is stored once
    assert memory_ids(server, tenant) == result_ids(event) and len(event["results"]) == 1
    assert len(fault.failed_calls) == 2 and fault.hits > 2
