"""The Dream scheduler function, invoked as EventBridge Scheduler invokes it: functions/dream_scheduler/app.py's
handler with events/dream_scheduler/schedule.json, under moto. It claims the users due of each project with
Synthesis on and queues one run per project on the ingest queue; the ingest worker's handler then runs it, with the
LLM the deployment's stored configuration names (the OpenAI provider on a loopback server). Nothing is queued
without an LLM, twice within the interval, or for a project turned off."""

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
from mnemo.composition.aws_functions import build_aws_dream_scheduler
from mnemo.composition.container import Container, build_container
from mnemo.domain.memory import Scope
from mnemo.domain.tenancy import EventStatus
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
from tests.support.openai_server import OpenAIServer

NOTHING = json.dumps({"synthesized": [], "merge": [], "supersede": []})


@dataclass
class Deployed:
    stack: Stack
    scheduler: ModuleType
    worker: ModuleType
    container: Container  # what the platform function would build: to make tenants, memories and settings
    llm: OpenAIServer
    early: str = ""  # the project the first test turned on

    @property
    def platform(self) -> PlatformFeatures:
        assert self.container.platform is not None
        return self.container.platform

    def tick(self) -> dict[str, Any]:
        answer: dict[str, Any] = self.scheduler.handler(
            load_event("dream_scheduler/schedule"), FakeLambdaContext(function_name="dream_scheduler")
        )
        return answer

    def received(self) -> list[dict[str, Any]]:
        reply = moto_aws.client("sqs").receive_message(
            QueueUrl=self.stack.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
        )
        messages: list[dict[str, Any]] = reply.get("Messages", [])
        return messages

    def work(self, messages: list[dict[str, Any]]) -> None:
        """Run the messages through the ingest worker's handler, as the SQS event source would."""
        event = {"Records": [sqs_record(m) for m in messages]}
        response = self.worker.handler(event, FakeLambdaContext(function_name="ingest_worker"))
        assert response["batchItemFailures"] == []

    def tenant(self, name: str, users: dict[str, int]) -> Bootstrapped:
        made = self.platform.tenancy.bootstrap(f"{name}@example.com", name)
        service = self.platform.namespaces.memory_service(made.project.id)
        for user, count in users.items():
            texts = [f"{user} keeps fact {i} about the {name} garden" for i in range(count)]
            service.add(AddCommand([Message("user", t) for t in texts], Scope(user_id=user), infer=False))
        return made


@pytest.fixture(scope="module")
def deployed(embedder: LocalMiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    with mock_aws(), OpenAIServer() as llm:
        stack = create_stack()
        with environment({**stack.env, "MNEMO_REFLECTION_MIN_MEMORIES": "3"}):
            root = Path(tmp_path_factory.mktemp("indexes"))
            databases: list[Database] = []
            indexes: dict[str, LocalMemoryIndex] = {}

            def index_for(namespace: str) -> MemoryIndex:
                if namespace not in indexes:
                    databases.append(Database(root / f"{namespace}.sqlite3"))
                    indexes[namespace] = LocalMemoryIndex(databases[-1], embedder.dimension, facets=english())
                return indexes[namespace]

            catalog = BedrockAsLocalCatalog(embedder)
            scheduler = importlib.import_module("functions.dream_scheduler.app")
            worker = importlib.import_module("functions.ingest_worker.app")
            worker.entry.container.reset(
                lambda: build_container(catalog=catalog, serves_http=False, namespace_index=index_for)
            )
            container = build_container(catalog=catalog, namespace_index=index_for)
            try:
                yield Deployed(stack, scheduler, worker, container, llm)
            finally:
                scheduler.entry.runtime.reset()
                worker.entry.container.reset()
                container.close()
                for database in databases:
                    database.close()


def test_without_an_llm_the_schedule_queues_nothing(deployed: Deployed) -> None:
    made = deployed.tenant("early", {"ann": 3})
    deployed.platform.dream_reflections.set_enabled(made.project.id, True)  # listed, as if an LLM had been there
    deployed.platform.tenancy.save_project(made.project.changed(reflection_enabled=True))

    assert deployed.tick() == {"runs": [], "users": 0}
    assert deployed.received() == []
    deployed.early = made.project.id


def test_the_schedule_queues_the_users_due_and_the_worker_runs_them(deployed: Deployed) -> None:
    llm = {"provider": "openai", "config": {"base_url": deployed.llm.base_url, "api_key": "sk-test", "model": "m"}}
    deployed.container.configuration.update({"llm": llm})  # stored in the memories table: every function reads it
    acme = deployed.tenant("acme", {"ann": 4, "bea": 3, "cid": 2})
    dream = deployed.platform.dream
    dream.update(acme.org.id, acme.project.id, acme.user, {"reflection_enabled": True})
    deployed.tenant("off", {"dan": 5})  # Synthesis never turned on
    manual = deployed.tenant("manual", {"eve": 5})
    dream.update(
        manual.org.id, manual.project.id, manual.user, {"reflection_enabled": True, "reflection_mode": "manual"}
    )

    ticked = deployed.tick()

    runs = {r["project_id"]: r["event_id"] for r in ticked["runs"]}
    assert set(runs) == {acme.project.id, deployed.early} and ticked["users"] == 3  # not off's, not manual's
    event = deployed.platform.events.get(acme.project.id, runs[acme.project.id])
    assert event.status is EventStatus.PENDING and event.payload["user_ids"] == ["ann", "bea"]
    messages = deployed.received()
    assert [json.loads(m["Body"])["event_id"] for m in messages] == list(runs.values())
    assert {m["Attributes"]["MessageGroupId"] for m in messages} == {f"{p}/dream" for p in runs}

    assert deployed.tick()["runs"] == []  # held for the runs queued: nothing queued twice

    deployed.llm.reply(*[NOTHING] * 3)
    deployed.work(messages)
    ran = deployed.platform.events.get(acme.project.id, runs[acme.project.id])
    assert ran.status is EventStatus.SUCCEEDED
    assert [(r["user_id"], r["status"]) for r in ran.results] == [("ann", "DONE"), ("bea", "DONE")]
    assert len(deployed.llm.chat_requests) == 3
    assert deployed.tick()["runs"] == []  # ran: not due for another interval
    deployed.container.configuration.update({"llm": None})


def test_the_function_needs_the_ingest_queue() -> None:
    with environment({"MNEMO_QUEUE_URL": ""}), pytest.raises(Exception, match="MNEMO_QUEUE_URL"):
        build_aws_dream_scheduler()
