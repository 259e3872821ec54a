"""The platform function, invoked as Lambda invokes it: functions/platform/app.py's handler with the sample events
of events/platform/ (API Gateway HTTP API, payload 2.0), through Powertools, Mangum, the platform routers, the
services, the DynamoDB tenancy store and the namespaced DynamoDB memory store, under moto. An asynchronous add
is queued to the real (moto) SQS FIFO queue and run by the ingest worker's handler.

No OpenSearch here: each project's index is an in-process one, shared by the functions as OpenSearch is.
The tests run in file order, as the life of one deployment.
"""

from __future__ import annotations

import importlib
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.access_log import DynamoAccessLog
from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.api.lazy_routers import lazy_routers
from mnemo.composition.container import Container, build_container
from mnemo.composition.platform import open_tenancy_store
from mnemo.domain import filters as f
from mnemo.entrypoints import lambda_http
from mnemo.errors import ProviderError
from mnemo.language.en import english
from mnemo.ports.memory_index import MemoryIndex
from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.platform.tenancy.callers import Bootstrapped
from tests.support import moto_aws
from tests.support.lambda_aws import (
    EVENTS,
    BedrockAsLocalCatalog,
    FakeLambdaContext,
    HttpResponse,
    Stack,
    create_stack,
    environment,
    load_event,
    sqs_record,
)


@dataclass
class Deployed:
    stack: Stack
    platform_function: ModuleType
    worker: ModuleType
    tenants: dict[str, Bootstrapped] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)

    def call(self, event: str, tenant: str = "acme", **fill: str) -> HttpResponse:
        """Invoke the platform function with events/platform/<event>.json, as `tenant` (its project key)."""
        loaded = load_event(f"platform/{event}", **{"project_key": self.tenants[tenant].api_key, **fill})
        raw = self.platform_function.handler(loaded, FakeLambdaContext(function_name="platform"))
        return HttpResponse.of(raw)

    def platform(self) -> PlatformFeatures:
        container: Container = self.platform_function.entry.function.container.get()
        assert container.platform is not None
        return container.platform

    def received(self) -> list[dict[str, Any]]:
        sqs = moto_aws.client("sqs")
        reply = sqs.receive_message(
            QueueUrl=self.stack.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
        )
        messages: list[dict[str, Any]] = reply.get("Messages", [])
        return messages


@pytest.fixture(scope="module")
def deployed(embedder: LocalMiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    with mock_aws():
        stack = create_stack()
        with environment(stack.env):
            root = Path(tmp_path_factory.mktemp("indexes"))
            databases: list[Database] = []
            indexes: dict[str, LocalMemoryIndex] = {}

            def index_for(namespace: str) -> MemoryIndex:
                if namespace not in indexes:
                    databases.append(Database(root / f"{namespace}.sqlite3"))
                    indexes[namespace] = LocalMemoryIndex(databases[-1], embedder.dimension, facets=english())
                return indexes[namespace]

            catalog = BedrockAsLocalCatalog(embedder)
            function = importlib.import_module("functions.platform.app")
            worker = importlib.import_module("functions.ingest_worker.app")
            function.entry.function.reset(lambda: build_container(catalog=catalog, namespace_index=index_for))
            worker.entry.container.reset(
                lambda: build_container(catalog=catalog, serves_http=False, namespace_index=index_for)
            )
            deployed = Deployed(stack, function, worker)
            tenancy = deployed.platform().tenancy
            deployed.tenants["acme"] = tenancy.bootstrap("alice@acme.example", "Acme")
            deployed.tenants["globex"] = tenancy.bootstrap("hank@globex.example", "Globex")
            yield deployed
            function.entry.function.reset()
            worker.entry.container.reset()
            for database in databases:
                database.close()


def test_given_a_project_key_when_pinged_then_the_key_names_its_org_and_project(deployed: Deployed) -> None:
    acme = deployed.tenants["acme"]
    pong = deployed.call("ping")
    assert pong.status == 200, pong.body
    assert pong.body["org_id"] == acme.org.id and pong.body["project_id"] == acme.project.id
    assert pong.body["user_email"] == "alice@acme.example"
    refused = deployed.call("ping", project_key="m0-" + "x" * 43)
    assert refused.status == 401
    # And the function has imported the router of /v1/ping/ only: the others wait for a request they could answer
    app = deployed.platform_function.entry.function.app
    assert lazy_routers(app).loaded() == ["mnemo.api.platform.project_data:router"]


def test_given_infer_false_when_adding_then_the_memory_is_stored_in_the_projects_namespace(deployed: Deployed) -> None:
    added = deployed.call("add_now")
    assert added.status == 200, added.body
    assert added.body["status"] == "SUCCEEDED"
    [result] = added.body["results"]
    assert result["event"] == "ADD" and result["data"]["memory"] == "I am vegetarian and I love green tea."
    deployed.state["memory_id"] = result["id"]
    project = deployed.tenants["acme"].project.id
    namespaced = DynamoMemoryStore(moto_aws.client("dynamodb"), deployed.stack.memories_table, namespace=project)
    assert [r.id for r in namespaced.find(f.parse({"user_id": "alice"}))] == [result["id"]]
    plain = DynamoMemoryStore(moto_aws.client("dynamodb"), deployed.stack.memories_table)
    assert plain.get(result["id"]) is None and plain.find(f.parse({"user_id": "alice"})) == []


def test_given_a_stored_memory_when_searched_and_read_then_it_is_found(deployed: Deployed) -> None:
    memory_id = deployed.state["memory_id"]
    found = deployed.call("search_v3")
    assert found.status == 200, found.body
    hits = found.body["results"] if isinstance(found.body, dict) else found.body
    assert [h["id"] for h in hits] == [memory_id]
    got = deployed.call("get", memory_id=memory_id)
    assert got.status == 200, got.body
    assert got.body["id"] == memory_id and got.body["memory"] == "I am vegetarian and I love green tea."


def test_given_decay_on_a_v3_search_reinforces_what_it_returns_during_the_next_invocation(deployed: Deployed) -> None:
    acme = deployed.tenants["acme"]
    memory_id = deployed.state["memory_id"]
    updated = deployed.call("project_update", org_id=acme.org.id, project_id=acme.project.id)  # {"decay": true}
    assert updated.status == 200 and updated.body["decay"] is True, updated.body
    accesses = DynamoAccessLog(moto_aws.client("dynamodb"), deployed.stack.memories_table, namespace=acme.project.id)
    buffer = deployed.platform().namespaces.access_buffer

    found = deployed.call("search_v3")
    (hit,) = found.body["results"]
    assert hit["id"] == memory_id and 0.3 <= hit["score_breakdown"]["decay"] <= 1.5
    assert accesses.recent([memory_id]) == {} and buffer.pending() == 1  # the search did not wait for its write
    assert deployed.call("ping").status == 200  # the next invocation writes it while it runs, and waits for it
    assert buffer.pending() == 0 and list(accesses.recent([memory_id])) == [memory_id]


def test_given_another_tenants_key_when_reading_the_memory_then_404_and_nothing_leaks(deployed: Deployed) -> None:
    memory_id = deployed.state["memory_id"]
    stolen = deployed.call("get", tenant="globex", memory_id=memory_id)
    assert stolen.status == 404, stolen.body
    assert deployed.call("delete", tenant="globex", memory_id=memory_id).status == 404
    searched = deployed.call("search_v3", tenant="globex")
    hits = searched.body["results"] if isinstance(searched.body, dict) else searched.body
    assert searched.status == 200 and hits == []
    assert deployed.call("get", memory_id=memory_id).status == 200  # still there for its own project


def test_given_a_memory_when_deleted_then_it_is_gone(deployed: Deployed) -> None:
    memory_id = deployed.state["memory_id"]
    deleted = deployed.call("delete", memory_id=memory_id)
    assert deleted.status == 200, deleted.body
    assert deployed.call("get", memory_id=memory_id).status == 404
    project = deployed.tenants["acme"].project.id
    accesses = DynamoAccessLog(moto_aws.client("dynamodb"), deployed.stack.memories_table, namespace=project)
    assert accesses.recent([memory_id]) == {}  # its retrievals went with it


def test_given_an_async_add_when_the_worker_runs_its_message_then_the_event_succeeds(deployed: Deployed) -> None:
    submitted = deployed.call("add_async")
    assert submitted.status == 200, submitted.body
    assert submitted.body["status"] == "PENDING"
    event_id = submitted.body["event_id"]
    pending = deployed.call("event_get", event_id=event_id)
    assert pending.status == 200 and pending.body["status"] == "PENDING"

    [message] = deployed.received()
    body = json.loads(message["Body"])
    project = deployed.tenants["acme"].project.id
    assert body == {
        "kind": "platform.add",
        "version": 1,
        "job_id": event_id,
        "project_id": project,
        "event_id": event_id,
    }
    assert message["Attributes"]["MessageGroupId"] == f"{project}/user:alice"  # one owner's adds in order
    event = {"Records": [sqs_record(message)]}
    response = deployed.worker.handler(event, FakeLambdaContext(function_name="ingest_worker"))
    assert response == {"batchItemFailures": []}
    moto_aws.client("sqs").delete_message(QueueUrl=deployed.stack.queue_url, ReceiptHandle=message["ReceiptHandle"])

    done = deployed.call("event_get", event_id=event_id)
    assert done.status == 200, done.body
    assert done.body["status"] == "SUCCEEDED"
    listed = deployed.call("list_v2")
    texts = [m["memory"] for m in (listed.body["results"] if isinstance(listed.body, dict) else listed.body)]
    assert texts and all(isinstance(t, str) for t in texts)
    assert deployed.call("event_get", tenant="globex", event_id=event_id).status == 404


def test_given_an_answer_larger_than_lambda_returns_then_413_says_to_ask_for_less(
    deployed: Deployed, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = deployed.call("list_v2")
    assert listed.status == 200
    monkeypatch.setattr(lambda_http, "MAX_RESPONSE_BYTES", 50)  # the real limit is 6 MB; this list is smaller
    refused = deployed.call("list_v2")
    assert refused.status == 413 and "smaller page" in refused.body["detail"]


class ThrottledEmbedder:
    """The embedder of a provider that keeps refusing: too many requests."""

    name = "throttled"
    dimension = 384

    def embed(self, texts: list[str]) -> Any:
        raise ProviderError("Provider rate limit hit. Retry shortly.", "provider_rate_limited")


def test_given_a_throttled_provider_then_adds_are_retried_soon_in_order_and_fail_on_their_last_attempt(
    deployed: Deployed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attempts are counted in each event: an add skipped behind a failed one of its group (its message received,
    not run) keeps all of its own."""
    monkeypatch.setenv("MNEMO_JOB_RETRY_SECONDS", "0")  # come back at once (30 s, 60 s, ... deployed)
    monkeypatch.setenv("MNEMO_JOB_ATTEMPTS", "2")
    deployed.worker.entry.container.reset()  # a new execution environment, with those settings
    providers = deployed.worker.entry.container.get().configuration.providers
    working = providers.get()
    providers.swap(replace(working, embedder=ThrottledEmbedder()))
    first_id = deployed.call("add_async").body["event_id"]
    second_id = deployed.call("add_async").body["event_id"]
    context = FakeLambdaContext(function_name="ingest_worker")

    def attempts(event_id: str) -> tuple[str, int]:
        event = deployed.platform().events.get(deployed.tenants["acme"].project.id, event_id)
        return event.status.value, event.attempts

    def deliver(expected: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        messages = deployed.received()
        assert len(messages) == expected
        return messages, deployed.worker.handler({"Records": [sqs_record(m) for m in messages]}, context)

    messages, response = deliver(2)  # one owner: one group, in order
    assert [json.loads(m["Body"])["event_id"] for m in messages] == [first_id, second_id]
    assert response == {"batchItemFailures": [{"itemIdentifier": m["MessageId"]} for m in messages]}
    assert (attempts(first_id), attempts(second_id)) == (("PENDING", 1), ("PENDING", 0))  # the second never ran

    messages, response = deliver(2)  # back now, not after the queue's 30-minute visibility timeout
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in messages] == ["2", "2"]
    assert response == {"batchItemFailures": [{"itemIdentifier": messages[1]["MessageId"]}]}
    failed = deployed.call("event_get", event_id=first_id).body
    assert failed["status"] == "FAILED" and "rate limit" in failed["error"]  # its last attempt
    assert attempts(second_id) == ("PENDING", 1)  # received twice, run once: one more attempt to go
    sqs = moto_aws.client("sqs")
    sqs.delete_message(QueueUrl=deployed.stack.queue_url, ReceiptHandle=messages[0]["ReceiptHandle"])

    providers.swap(working)  # the provider is back
    [last], response = deliver(1)
    assert response == {"batchItemFailures": []}
    assert attempts(second_id) == ("SUCCEEDED", 2)
    sqs.delete_message(QueueUrl=deployed.stack.queue_url, ReceiptHandle=last["ReceiptHandle"])


def test_every_sample_event_is_answered_without_a_server_error(deployed: Deployed) -> None:
    """Each events/platform/ sample, as `sam local invoke` would send it, with a real key, org and project: no
    5xx, a JSON answer. The project sample deletes a second project of the org; the organization sample, last,
    deletes the org with every project in it."""
    tenant = deployed.tenants["globex"]
    tenancy = deployed.platform().tenancy
    spare = tenancy.create_project(tenant.org.id, tenant.user, "Spare")
    names = sorted(p.stem for p in (EVENTS / "platform").glob("*.json"))
    for name in [n for n in names if n != "org_delete"] + ["org_delete"]:
        project = spare.id if name == "project_delete" else tenant.project.id
        ids = {"org_id": tenant.org.id, "project_id": project, "memory_id": str(uuid.uuid4())}
        response = deployed.call(name, tenant="globex", **ids)
        assert response.status < 500, (name, response.status, response.body)
        assert response.headers["content-type"].startswith("application/json"), name
    with open_tenancy_store(deployed.platform_function.entry.function.container.get().settings) as store:
        assert store.get_project(spare.id) is None
        assert store.get_org(tenant.org.id) is None and store.get_project(tenant.project.id) is None
