"""A delete erases, on the platform, on both backends: a sentinel written through every path that stores text — a
verbatim add, an asynchronous inferred add (its event keeps the messages and the memories' texts) whose message holds
a sibling memory's sentence too, an update of a memory's text (history keeps both texts), an export, metadata given
to an add and to an import's item, with a webhook subscribed to every event (the outbox and the delivery log keep
each event's payload) — then deleted each way: by id, by filter, by entity, with its project. Afterwards no byte of
any file of the deployment
(the SQLite files and their WAL, each project's namespace file, the stand-in for OpenSearch) and, on AWS, no item
of any DynamoDB table (compressed attributes unpacked) holds it; what was not deleted is whole."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.platform.conftest import Server, Tenant, new_tenant, serving, wait_for_event
from tests.e2e.platform.test_webhooks import container_for, create
from tests.support.erasure_scan import Sentinel, files_holding, items_holding, rows_holding, settled_scan
from tests.support.waits import HTTP_TIMEOUT, seconds
from tests.support.webhook_aws import aws_webhook_backend
from tests.support.webhook_receiver import Receiver, receiving


@dataclass
class Deployment:
    server: Server
    root: Path

    def holding(self, needle: str) -> list[str]:
        found = files_holding(self.root, needle)
        return found + (items_holding(needle) if self.server.backend == "aws" else [])


@pytest.fixture(scope="module", params=["local", "aws"])
def deployment(
    request: pytest.FixtureRequest, embedder: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp(f"erasure-{request.param}")
    if request.param == "local":
        container = container_for(embedder, root)
        try:
            with serving(container) as url:
                yield Deployment(Server(url, container), root)
        finally:
            container.close()
        return
    with aws_webhook_backend(embedder, root) as built, serving(built) as url:
        yield Deployment(Server(url, built, "aws"), root)


@dataclass
class Written:
    tenant: Tenant
    user: str
    ids: dict[str, str]


def call(deployment: Deployment, tenant: Tenant, method: str, path: str, **kwargs: Any) -> Any:
    answer = httpx.request(
        method, f"{deployment.server.url}{path}", headers=tenant.headers, timeout=HTTP_TIMEOUT, **kwargs
    )
    assert answer.status_code < 300, (method, path, answer.status_code, answer.text)
    return answer.json() if answer.content else None


def write(deployment: Deployment, receiver: Receiver, word: str) -> Written:
    server = deployment.server
    tenant = new_tenant(server, "erase")
    create(server, tenant, receiver.url)
    user = f"u{uuid.uuid4().hex[:10]}"
    add = "/v3/memories/add/"
    verbatim = call(
        deployment,
        tenant,
        "POST",
        add,
        json={
            "messages": [{"role": "user", "content": f"My gym locker code is {word} today."}],
            "user_id": user,
            "infer": False,
            "metadata": {"note": f"meta-verbatim-{word}"},
        },
    )
    queued = call(
        deployment,
        tenant,
        "POST",
        add,
        json={
            "messages": [
                {
                    "role": "user",
                    "content": f"I keep the spare key under the {word} flowerpot. I love hiking in the Swiss Alps.",
                }
            ],
            "user_id": user,
            "metadata": {"note": "given to the sentinel's memory and to its sibling, which keeps it"},
        },
    )
    done = wait_for_event(server, tenant, queued["event_id"])
    assert done["status"] == "SUCCEEDED", done
    key = next(r["id"] for r in done["results"] if word in r["data"]["memory"])
    sibling = next(r["id"] for r in done["results"] if "hiking" in r["data"]["memory"])
    plain = call(
        deployment,
        tenant,
        "POST",
        add,
        json={
            "messages": [{"role": "user", "content": "My bike is a blue road bike."}],
            "user_id": user,
            "infer": False,
        },
    )["results"][0]["id"]
    call(deployment, tenant, "PUT", f"/v1/memories/{plain}/", json={"text": f"My bike lock code is {word}."})
    imported = call(
        deployment,
        tenant,
        "POST",
        "/v1/memories/import/",
        json={
            "items": [{"memory": "My umbrella is yellow.", "metadata": {"note": f"meta-imported-{word}"}}],
            "user_id": user,
            "format": "items",
        },
    )
    done = wait_for_event(server, tenant, imported["event_id"])
    assert done["status"] == "SUCCEEDED", done
    [umbrella] = done["results"][0]["memory_ids"]
    other = call(
        deployment,
        tenant,
        "POST",
        add,
        json={
            "messages": [{"role": "user", "content": "I drink green tea every morning."}],
            "user_id": "bob",
            "infer": False,
        },
    )["results"][0]["id"]
    schema = {
        "type": "object",
        "properties": {
            "memories": {
                "type": "array",
                "items": {"type": "object", "properties": {"id": {"type": "string"}, "memory": {"type": "string"}}},
            },
            "texts": {"type": "string"},
        },
    }
    call(deployment, tenant, "POST", "/v1/exports/", json={"schema": schema, "filters": {"user_id": user}})
    return Written(
        tenant,
        user,
        {
            "verbatim": verbatim["results"][0]["id"],
            "key": key,
            "updated": plain,
            "sibling": sibling,
            "bob": other,
            "imported": umbrella,
        },
    )


def settled(receiver: Receiver, quiet: float = 1.0, timeout: float = 30.0) -> None:
    """Wait until the receiver has received nothing new for `quiet` seconds (every delivery made is sent)."""
    deadline = time.monotonic() + seconds(timeout)
    count, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        now_count = len(receiver.delivered())
        if now_count != count:
            count, since = now_count, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.1)


def delete(deployment: Deployment, written: Written, how: str) -> None:
    tenant = written.tenant
    if how == "each by id":
        for name in ("verbatim", "key", "updated", "imported"):
            call(deployment, tenant, "DELETE", f"/v1/memories/{written.ids[name]}/")
    elif how == "by filter":
        call(deployment, tenant, "DELETE", "/v1/memories/", params={"user_id": written.user})
    elif how == "by entity":
        call(deployment, tenant, "DELETE", f"/v2/entities/user/{written.user}/")
    else:
        call(deployment, tenant, "DELETE", f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/")


@pytest.mark.parametrize("how", ["each by id", "by filter", "by entity", "with its project"])
def test_a_deleted_sentinel_is_nowhere_in_the_deployment(deployment: Deployment, how: str) -> None:
    sentinel = Sentinel.new()
    with receiving() as receiver:
        written = write(deployment, receiver, sentinel.word)
        receiver.wait_for(lambda got: any(sentinel.word in r.raw.decode() for r in got))
        settled(receiver)
        assert deployment.holding(sentinel.needle)  # the scan sees it while it is stored

        delete(deployment, written, how)
        receiver.wait_for(
            lambda got: any(r.body.get("event_type") == "memory_delete" for r in got) or how == "with its project"
        )
        settled(receiver)

        left = settled_scan(lambda: deployment.holding(sentinel.needle))
        assert left == [], (left, rows_holding(deployment.root, sentinel.needle))
        deletes = [r.body for r in receiver.delivered() if r.body.get("event_type") == "memory_delete"]
        assert all(d["event_details"]["data"]["memory"] == "" for d in deletes)  # a delete event names, never quotes
    if how == "with its project":
        if deployment.server.backend == "local":
            left = [p.name for p in deployment.root.rglob(f"*{written.tenant.project_id}*")]
            assert left == [], left  # the namespace file, its WAL, its index snapshot and the snapshot's lock
        return
    tenant = written.tenant
    events = call(deployment, tenant, "GET", "/v1/events/")["results"]
    assert [e["event_type"] for e in events if e["metadata"]] == []  # what the erased memories were given, gone
    history = call(deployment, tenant, "GET", f"/v1/memories/{written.ids['updated']}/history/")
    assert [h["event"] for h in history] == ["ADD", "UPDATE", "DELETE"]
    assert all(h["old_memory"] is None and h["new_memory"] is None for h in history)
    kept = call(deployment, tenant, "GET", f"/v1/memories/{written.ids['bob']}/")
    assert kept["memory"] == "I drink green tea every morning."
    if how == "each by id":
        sibling = call(deployment, tenant, "GET", f"/v1/memories/{written.ids['sibling']}/")
        assert sibling["memory"] == "I love hiking in the Swiss Alps."
