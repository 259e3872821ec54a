"""OpenSearch answering 429 or 503, or refusing connections, on the AWS backend: the real OpenSearch adapter (its
retries included) faces the outage. A search answers 503 with a message that says the search index is down (not a
500, and not an empty result that reads as "no memories"); an add made meanwhile is kept in DynamoDB, the source of
truth: a queued add runs again once the index is back, and a memory the index missed is found again after
`mnemo reindex`. A queued add whose memory was stored but whose index write failed is searchable once its job is
redelivered (the rerun writes the index documents of the memories it finds stored already), and a platform
project whose index was lost is searchable again after `mnemo reindex --project`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import pytest

from mnemo.adapters.aws.namespaces import AwsMemoryNamespaces
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.composition.maintenance import Backends, reindex
from mnemo.composition.platform_reindex import NamespaceBackends, reindex_projects
from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors
from mnemo.settings import Settings
from tests.e2e.platform.conftest import Server, new_tenant, serving, wait_for_event
from tests.reliability.aws_fault_steps import add, memory_ids, result_ids, search, wait_until
from tests.support import moto_aws
from tests.support.aws_fault_backend import REFUSED, FaultyAws, faulty_aws
from tests.support.lambda_aws import ADMIN_API_KEY

OUTAGES = {"429": 429, "503": 503, "refused": REFUSED}
ADMIN = {"x-api-key": ADMIN_API_KEY}


@pytest.fixture(scope="module")
def aws(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FaultyAws]:
    root = tmp_path_factory.mktemp("aws-opensearch-faults")
    with faulty_aws(embedder, root, env={"MNEMO_JOB_RETRY_SECONDS": "0"}) as backend:
        yield backend


@pytest.fixture(scope="module")
def server(aws: FaultyAws) -> Iterator[Server]:
    with serving(aws.container) as url:
        yield Server(url, aws.container, "aws")


@pytest.fixture(autouse=True)
def opensearch_back_up(aws: FaultyAws) -> Iterator[None]:
    yield
    aws.outage.status = None


@pytest.mark.parametrize("outage", OUTAGES.values(), ids=OUTAGES.keys())
def test_a_search_while_opensearch_is_down_is_a_clear_503(aws: FaultyAws, server: Server, outage: int) -> None:
    # Given a tenant with a memory, and OpenSearch down
    tenant = new_tenant(server)
    assert add(server, tenant, "I keep bees.", infer=False).status_code == 200
    aws.outage.status = outage
    before = aws.outage.requests
    # When the tenant searches (the platform) and the admin searches (the self-hosted API)
    answers = [
        search(server, tenant, "bees"),
        httpx.post(f"{server.url}/search", json={"query": "bees", "user_id": "alice"}, headers=ADMIN, timeout=60),
    ]
    # Then each is a 503 naming OpenSearch, with Retry-After, after the adapter's own retries
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert "OpenSearch" in answer.json()["detail"]
        assert answer.headers["retry-after"] == "1"
    assert aws.outage.requests - before >= 2 * 4  # each search: its first attempt and three retries
    # And once OpenSearch is back, the memory is found
    aws.outage.status = None
    found = search(server, tenant, "bees")
    assert [m["memory"] for m in found.json()["results"]] == ["I keep bees."]


def test_a_queued_add_while_opensearch_is_down_runs_again_once_it_is_back(aws: FaultyAws, server: Server) -> None:
    # Given OpenSearch down
    tenant = new_tenant(server)
    aws.outage.status = 503
    before = aws.outage.requests
    # When an add is acknowledged, and its job meets the outage
    answer = add(server, tenant, "My brother Tiago lives in Braga.")
    assert answer.status_code == 200 and answer.json()["status"] == "PENDING", answer.text
    wait_until(lambda: aws.outage.requests > before, "the worker to reach the index")  # its job fails, PENDING
    aws.outage.status = None
    # Then the job runs again, and the add's memory is in the store
    event = wait_for_event(server, tenant, answer.json()["event_id"])
    assert event["status"] == "SUCCEEDED", event
    assert memory_ids(server, tenant) == result_ids(event) and len(event["results"]) == 1


def test_reindex_heals_an_index_that_missed_an_add(aws: FaultyAws, server: Server) -> None:
    # Given OpenSearch down while the admin adds a memory (self-hosted: the main store and index)
    aws.outage.status = REFUSED
    body = {"messages": [{"role": "user", "content": "Carla plays the cello."}], "user_id": "carla", "infer": False}
    added = httpx.post(f"{server.url}/memories", json=body, headers=ADMIN, timeout=60)
    # Then the add answers 503 (its index write failed), but DynamoDB holds the memory: the store is the truth
    assert added.status_code == 503, added.text
    store = DynamoMemoryStore(moto_aws.client("dynamodb"), aws.stack.memories_table)
    listed = httpx.get(f"{server.url}/memories", params={"user_id": "carla"}, headers=ADMIN, timeout=60)
    assert [m["memory"] for m in listed.json()["results"]] == ["Carla plays the cello."]
    # And once OpenSearch is back, the search does not find it until `mnemo reindex` rebuilds the index
    aws.outage.status = None
    search = {"query": "cello", "user_id": "carla"}
    assert httpx.post(f"{server.url}/search", json=search, headers=ADMIN, timeout=60).json()["results"] == []
    index = aws.indexes.named("main")
    report = reindex(Settings(), opener=lambda _settings: Backends(store, index, lambda: None))
    assert report.memories >= 1
    found = httpx.post(f"{server.url}/search", json=search, headers=ADMIN, timeout=60).json()["results"]
    assert [m["memory"] for m in found] == ["Carla plays the cello."]


def test_an_add_whose_index_write_fails_once_is_searchable_after_redelivery(
    aws: FaultyAws, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a project whose first index write meets OpenSearch answering 429 (after the memory is in DynamoDB)
    tenant = new_tenant(server)
    project = tenant.project_id
    switched = aws.outage.wrap(aws.indexes.named(project), project)  # the project's index, as the workers get it
    up = aws.indexes.named(project)
    healthy = up.upsert
    throttled: list[int] = []

    def throttled_once(records: Sequence[MemoryRecord], vectors: Vectors) -> None:
        if throttled:
            return healthy(records, vectors)
        throttled.append(len(records))
        aws.outage.status = 429
        try:
            switched.upsert(records, vectors)  # the real adapter, its retries included, against the 429s
        finally:
            aws.outage.status = None

    monkeypatch.setattr(up, "upsert", throttled_once)
    # When an add is acknowledged, its memory stored, its index write refused, and its job redelivered
    answer = add(server, tenant, "My brother Tiago lives in Braga.")
    assert answer.status_code == 200 and answer.json()["status"] == "PENDING", answer.text
    event = wait_for_event(server, tenant, answer.json()["event_id"])
    # Then the job succeeds on its rerun, naming the memory stored by its first attempt
    assert throttled == [1], "the first index write was not refused"
    assert event["status"] == "SUCCEEDED", event
    assert memory_ids(server, tenant) == result_ids(event) and len(event["results"]) == 1
    # And the memory is searchable: the rerun wrote its index document
    found = search(server, tenant, "Tiago")
    assert found.status_code == 200, found.text
    assert [m["id"] for m in found.json()["results"]] == result_ids(event)


def test_reindex_of_a_platform_project_restores_a_dropped_index(aws: FaultyAws, server: Server) -> None:
    # Given a project with memories, and another one, whose index documents are all lost
    tenant, other = new_tenant(server), new_tenant(server)
    for text in ("I keep bees.", "I grow tomatoes."):
        assert add(server, tenant, text, infer=False).status_code == 200
    assert add(server, other, "I sail.", infer=False).status_code == 200
    aws.indexes.named(tenant.project_id).clear()
    assert search(server, tenant, "bees").json()["results"] == []
    # When `mnemo reindex --project` rebuilds the project's index from DynamoDB, with progress
    dynamodb = moto_aws.client("dynamodb")
    namespaces = AwsMemoryNamespaces(
        dynamodb, aws.stack.memories_table, lambda name: aws.outage.wrap(aws.indexes.named(name), name)
    )
    known = {tenant.project_id, other.project_id}
    backends = NamespaceBackends(namespaces, lambda project_id: project_id in known, namespaces.close)
    seen: list[tuple[str, int, int]] = []
    done = reindex_projects(
        Settings(),
        [tenant.project_id],
        batch_size=1,
        progress=lambda project_id: lambda n, total: seen.append((project_id, n, total)),
        opener=lambda _settings: backends,
    )
    # Then its memories are found again, its progress was told batch by batch, and no other project was touched
    assert [(d.project_id, d.memories) for d in done] == [(tenant.project_id, 2)]
    assert seen == [(tenant.project_id, 0, 2), (tenant.project_id, 1, 2), (tenant.project_id, 2, 2)]
    found = search(server, tenant, "bees").json()["results"]
    assert [m["memory"] for m in found][:1] == ["I keep bees."]
    assert [m["memory"] for m in search(server, other, "sail").json()["results"]] == ["I sail."]
