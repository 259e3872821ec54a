"""`mnemo platform bootstrap` with MNEMO_BACKEND=aws starts a tenant in a deployed stack's accounts table
(DynamoDB under moto): the printed key opens the new project, and a second run for the same email reuses the
user. `mnemo platform resume` queues again the adds a dead worker left unfinished."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
from mnemo.domain.memory import new_id, now
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.entrypoints import cli
from mnemo.services.platform.tenancy.service import TenancyService
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_accounts_table

TABLE = "mnemo-test-accounts"


@pytest.fixture
def accounts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    moto_aws.aws_cli_environment(monkeypatch, MNEMO_ACCOUNTS_TABLE=TABLE)
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_accounts_table(client, TABLE)
        yield client


def bootstrap(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, str]:
    assert cli.main(["platform", "bootstrap", "--json", *args]) == 0
    printed: dict[str, str] = json.loads(capsys.readouterr().out)
    return printed


def test_given_the_aws_backend_when_bootstrapping_then_the_key_opens_its_project_in_dynamodb(
    accounts: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    started = bootstrap(capsys, "--email", "Ops@Example.com", "--org", "Acme", "--project", "Main")
    tenancy = TenancyService(DynamoTenancyStore(accounts, TABLE), lambda _namespace: None)

    caller = tenancy.authenticate(started["api_key"])

    assert caller.project.id == started["project_id"]
    assert caller.project.org_id == started["org_id"]
    assert caller.user.email == "ops@example.com"
    stored = json.dumps(accounts.scan(TableName=TABLE)["Items"])
    assert started["api_key"] not in stored  # hashed, never kept in clear


def test_given_a_known_email_when_bootstrapping_again_then_the_same_user_owns_a_second_org(
    accounts: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    first = bootstrap(capsys, "--email", "ops@example.com", "--org", "Acme")
    second = bootstrap(capsys, "--email", "OPS@example.com", "--org", "Globex")
    store = DynamoTenancyStore(accounts, TABLE)
    user = store.user_by_email("ops@example.com")

    assert user is not None
    assert {org.id for org in store.orgs_of(user.id)} == {first["org_id"], second["org_id"]}
    assert first["project_id"] != second["project_id"]


def test_given_adds_left_unfinished_when_resuming_then_the_stale_ones_are_queued_again(
    accounts: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that died on an add's last attempt leaves its event RUNNING and its message dead-lettered:
    `mnemo platform resume` queues such events again, grouped as the add route queues them."""
    sqs = moto_aws.client("sqs")
    url = sqs.create_queue(QueueName="ingest.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    monkeypatch.setenv("MNEMO_QUEUE_URL", url)
    store = DynamoTenancyStore(accounts, TABLE)
    long_ago, just_now = now() - timedelta(hours=2), now()
    payload = {"messages": [{"role": "user", "content": "I keep bees"}], "user_id": "alice"}

    def saved(status: EventStatus, when: datetime, kind: str = "ADD") -> PlatformEvent:
        event = PlatformEvent(new_id(), "proj_a", kind, status, payload, when, when)
        store.save_event(event)
        return event

    stuck = [saved(EventStatus.RUNNING, long_ago), saved(EventStatus.PENDING, long_ago)]
    saved(EventStatus.PENDING, just_now)  # still on its way: left alone
    saved(EventStatus.SUCCEEDED, long_ago)
    saved(EventStatus.FAILED, long_ago)

    assert cli.main(["platform", "resume", "--older-than-minutes", "30"]) == 0
    assert "2 unfinished add(s) queued again." in capsys.readouterr().out
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"])
    sent = [(json.loads(m["Body"])["event_id"], m["Attributes"]["MessageGroupId"]) for m in messages["Messages"]]
    assert sorted(sent) == sorted((e.id, "proj_a/user:alice") for e in stuck)


def test_given_the_local_backend_when_resuming_then_it_says_the_worker_does_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMO_BACKEND", "local")
    assert cli.main(["platform", "resume"]) == 2
    assert "each time `mnemo serve` starts" in capsys.readouterr().err
