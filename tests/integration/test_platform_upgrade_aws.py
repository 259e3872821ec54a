"""`mnemo platform upgrade` brings platform items an earlier version wrote (no by_namespace entry, no app counts, no
event counts, one partition of unfinished markers) to the current layout: afterwards a project's drop takes them,
its apps are listed with their memory counts, its event totals are right, and resume finds its unfinished adds.
Running it again changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.memory_store import DynamoMemoryStore
from mnemo.adapters.dynamodb.tenancy_store import UNFINISHED, DynamoTenancyStore
from mnemo.domain.entities import EntityType
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope, new_id
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.entrypoints import cli
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_accounts_table, create_memory_table

MEMORIES, ACCOUNTS = "mnemo-test-memories", "mnemo-test-accounts"
T0 = datetime(2026, 1, 2, tzinfo=UTC)


@pytest.fixture
def tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    moto_aws.aws_cli_environment(monkeypatch, MNEMO_DYNAMODB_TABLE=MEMORIES, MNEMO_ACCOUNTS_TABLE=ACCOUNTS)
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_memory_table(client, MEMORIES)
        create_accounts_table(client, ACCOUNTS)
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
        "10 project item(s) indexed by namespace, 0 app count(s) set, 2 event count(s) set, "
        "1 unfinished-event marker(s) moved, 0 project member(s) given their project pointer.\n"
    )
    assert [e.id for e in store.unfinished_events()] == [pending.id]
    assert [store.count_events("proj_a", kind) for kind in ("ADD", "DELETE")] == [1, 1]
    project.clear(settings=True)
    left = [i for i in tables.scan(TableName=MEMORIES)["Items"] if i["pk"]["S"].startswith("NS#proj_a#")]
    assert left == [] and other.get(kept.id) == kept

    again = run_upgrade(capsys)
    assert again.startswith("0 project item(s) indexed") and "0 unfinished-event marker(s) moved" in again


def counts(store: DynamoMemoryStore) -> list[tuple[str, str, int]]:
    return [(e.type.value, e.id, e.total_memories) for e in store.count_by_entity()]


def test_given_app_memories_an_earlier_version_did_not_count_when_upgrading_then_every_app_is_counted(
    tables: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    project = DynamoMemoryStore(tables, MEMORIES, namespace="proj_a")
    other = DynamoMemoryStore(tables, MEMORIES, namespace="proj_b")
    plain = DynamoMemoryStore(tables, MEMORIES)
    web = [MemoryRecord.create(f"web fact {i}", Scope(app_id="web"), at=T0) for i in range(3)]
    alice = MemoryRecord.create("alice on the web", Scope(user_id="alice", app_id="web"), at=T0)
    gone = MemoryRecord.create("an outdated cli fact", Scope(app_id="cli"), at=T0)
    project.insert([*web, alice, gone], np.ones((5, 4), dtype=np.float32), [])
    outdated = gone.changed(state=LifecycleState.SUPERSEDED)
    project.replace(outdated, None, HistoryEntry.of(Event.UPDATE, outdated, gone.text, None))
    other.insert([MemoryRecord.create("b's note", Scope(app_id="web"))], np.ones((1, 4), dtype=np.float32), [])
    plain.insert([MemoryRecord.create("own", Scope(user_id="u", app_id="site"))], np.ones((1, 4), dtype=np.float32), [])
    for item in tables.scan(TableName=MEMORIES)["Items"]:  # what the earlier version kept: no app aggregate
        if item["sk"]["S"] == "ENT" and item["entity_type"]["S"] == EntityType.APP.value:
            tables.delete_item(TableName=MEMORIES, Key={"pk": item["pk"], "sk": item["sk"]})
    ghost = DynamoMemoryStore(tables, MEMORIES, namespace="proj_c")  # an app count left without memories
    ghost.insert([lonely := MemoryRecord.create("lonely", Scope(app_id="gone"))], np.ones((1, 4), dtype=np.float32), [])
    tables.delete_item(TableName=MEMORIES, Key={"pk": {"S": f"NS#proj_c#MEM#{lonely.id}"}, "sk": {"S": "MEM"}})
    assert counts(project) == [("user", "alice", 1)] and counts(ghost) == [("app", "gone", 1)]

    out = run_upgrade(capsys)

    assert "3 app count(s) set" in out  # web in proj_a and proj_b, site in the plain store
    assert counts(project) == [("app", "web", 4), ("user", "alice", 1)]
    assert counts(other) == [("app", "web", 1)]
    assert counts(plain) == [("app", "site", 1), ("user", "u", 1)]
    assert counts(ghost) == []
    (listed,) = [e for e in project.count_by_entity() if e.type is EntityType.APP]
    assert (listed.created_at, listed.updated_at) == (T0, T0)

    assert "3 app count(s) set" in run_upgrade(capsys)  # again: the same counts, nothing else
    assert counts(project) == [("app", "web", 4), ("user", "alice", 1)] and counts(ghost) == []


def test_given_project_members_an_earlier_version_did_not_point_to_when_upgrading_then_their_projects_are_listed(
    tables: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from mnemo.adapters.dynamodb.upgrade import upgrade_platform_items
    from mnemo.domain.tenancy import Organization, PlatformUser, Project, Role

    store = DynamoTenancyStore(tables, ACCOUNTS)
    alice, bob = (store.add_user(PlatformUser(new_id(), f"{n}@example.com", T0)) for n in ("alice", "bob"))
    acme = Organization("org_a", "Acme", T0, T0)
    store.add_org(acme, alice)
    one = Project(id="proj_a", org_id=acme.id, name="one", created_at=T0, updated_at=T0)
    store.add_project(one, alice)
    store.set_project_member(one.id, bob, Role.READER)
    for item in tables.scan(TableName=ACCOUNTS)["Items"]:  # what the earlier version wrote: no such pointer
        if item["pk"]["S"].startswith("T#USER#") and item["sk"]["S"].startswith("PROJ#"):
            tables.delete_item(TableName=ACCOUNTS, Key={"pk": item["pk"], "sk": item["sk"]})
    assert store.projects_of_member(bob.id) == [] and store.projects_of_member(alice.id) == []

    report = upgrade_platform_items(tables, MEMORIES, ACCOUNTS, page_size=1)

    assert report.member_pointers == 2
    assert store.projects_of_member(bob.id) == [one] and store.projects_of_member(alice.id) == [one]
    assert upgrade_platform_items(tables, MEMORIES, ACCOUNTS).member_pointers == 2  # the same items again
    assert run_upgrade(capsys).endswith(", 2 project member(s) given their project pointer.\n")  # what it says
