"""`mnemo platform upgrade` brings platform items an earlier version wrote (no by_namespace entry, no event
counts, one partition of unfinished markers) to the current layout: afterwards a project's drop takes them, its
event totals are right, and resume finds its unfinished adds. Running it again changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.dynamodb.schema import create_memory_table
from mnemo.adapters.dynamodb.tenancy_store import UNFINISHED, DynamoTenancyStore, create_tenancy_table
from mnemo.domain.memory import MemoryRecord, Scope, new_id
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.entrypoints import cli
from tests.support import moto_aws

MEMORIES, ACCOUNTS = "mnemo-test-memories", "mnemo-test-accounts"
T0 = datetime(2026, 1, 2, tzinfo=UTC)


@pytest.fixture
def tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    moto_aws.aws_cli_environment(monkeypatch, MNEMO_DYNAMODB_TABLE=MEMORIES, MNEMO_ACCOUNTS_TABLE=ACCOUNTS)
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_memory_table(client, MEMORIES)
        create_tenancy_table(client, ACCOUNTS)
        yield client


def as_before(client: Any) -> None:
    """What the earlier layout left: no ns_pk, no EVENTCOUNT items, markers in T#UNFINISHED."""
    for item in client.scan(TableName=MEMORIES)["Items"]:
        if "ns_pk" in item:
            client.update_item(
                TableName=MEMORIES, Key={"pk": item["pk"], "sk": item["sk"]}, UpdateExpression="REMOVE ns_pk"
            )
    for item in client.scan(TableName=ACCOUNTS)["Items"]:
        key = {"pk": item["pk"], "sk": item["sk"]}
        if item["sk"]["S"].startswith("EVENTCOUNT#"):
            client.delete_item(TableName=ACCOUNTS, Key=key)
        elif item["pk"]["S"].startswith(f"{UNFINISHED}#"):
            client.delete_item(TableName=ACCOUNTS, Key=key)
            client.put_item(TableName=ACCOUNTS, Item={**item, "pk": {"S": UNFINISHED}})


def run_upgrade(capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(["platform", "upgrade"]) == 0
    return capsys.readouterr().out


def test_given_items_of_the_earlier_layout_when_upgrading_then_drop_counts_and_resume_work(
    tables: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    project = DynamoMemoryStore(tables, MEMORIES, namespace="proj_a")
    other = DynamoMemoryStore(tables, MEMORIES, namespace="proj_b")
    records = [MemoryRecord.create(f"fact {i}", Scope(user_id="alice")) for i in range(3)]
    project.insert(records, np.ones((3, 4), dtype=np.float32), [])
    kept = MemoryRecord.create("secret of b", Scope(user_id="bob"))
    other.insert([kept], np.ones((1, 4), dtype=np.float32), [])
    store = DynamoTenancyStore(tables, ACCOUNTS)
    pending = PlatformEvent(new_id(), "proj_a", "ADD", EventStatus.PENDING, {"messages": [], "user_id": "a"}, T0, T0)
    store.save_event(pending)
    store.save_event(PlatformEvent(new_id(), "proj_a", "DELETE", EventStatus.SUCCEEDED, {}, T0, T0))
    as_before(tables)
    assert store.unfinished_events() == [] and store.count_events("proj_a") == 0  # what the upgrade repairs

    assert run_upgrade(capsys) == (
        "10 project item(s) indexed by namespace, 2 event count(s) set, 1 unfinished-event marker(s) moved.\n"
    )
    assert [e.id for e in store.unfinished_events()] == [pending.id]
    assert [store.count_events("proj_a", kind) for kind in ("ADD", "DELETE")] == [1, 1]
    project.clear(settings=True)
    left = [i for i in tables.scan(TableName=MEMORIES)["Items"] if i["pk"]["S"].startswith("NS#proj_a#")]
    assert left == [] and other.get(kept.id) == kept

    again = run_upgrade(capsys)
    assert again.startswith("0 project item(s) indexed") and "0 unfinished-event marker(s) moved" in again
