"""Deleting a project from DynamoDB takes many batches; one interrupted midway (a Lambda timing out, a throttle
that outlasts the retries) must leave a project its owners can still reach and delete again, never orphans; a
marker of an unfinished event whose project is gone is cleared."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.codec import key
from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore, unfinished_pk
from mnemo.domain.memory import new_id
from mnemo.domain.tenancy import EventStatus, Organization, PlatformEvent, PlatformUser, Project, ProjectKey
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_accounts_table

T0 = datetime(2026, 1, 2, tzinfo=UTC)


class FailingAfter:
    """The DynamoDB client, whose BatchWriteItem fails once `allowed` calls have gone through."""

    def __init__(self, client: Any, allowed: int) -> None:
        self._client = client
        self.allowed = allowed

    def batch_write_item(self, **kwargs: Any) -> Any:
        if self.allowed <= 0:
            raise TimeoutError("the Lambda ran out of time")
        self.allowed -= 1
        return self._client.batch_write_item(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@pytest.fixture
def client() -> Iterator[Any]:
    with mock_aws():
        made = moto_aws.client("dynamodb")
        create_accounts_table(made, "tenancy")
        yield made


@pytest.mark.parametrize("allowed", [0, 1, 2, 3])
def test_an_interrupted_project_delete_leaves_the_project_reachable_and_a_second_delete_finishes(
    client: Any, allowed: int
) -> None:
    setup = DynamoTenancyStore(client, "tenancy")
    owner = setup.add_user(PlatformUser(new_id(), "owner@example.com", T0))
    org = Organization(f"org_{new_id()[:8]}", "acme", T0, T0)
    setup.add_org(org, owner)
    project = Project(id=f"proj_{new_id()[:8]}", org_id=org.id, name="p", created_at=T0, updated_at=T0)
    setup.add_project(project, owner)
    setup.add_key(ProjectKey(new_id(), project.id, owner.id, "", "m0-x", "hash-1", T0))
    for _ in range(60):  # three batches of events
        setup.save_event(PlatformEvent(new_id(), project.id, "ADD", EventStatus.SUCCEEDED, {}, T0, T0))

    interrupted = DynamoTenancyStore(FailingAfter(client, allowed), "tenancy")
    with pytest.raises(TimeoutError):
        interrupted.delete_project(project.id)
    assert setup.get_project(project.id) == project
    assert [p.id for p in setup.projects_of_org(org.id)] == [project.id]
    assert setup.key_by_hash("hash-1") is not None  # the owner's key still opens it
    assert [m.user.id for m in setup.project_members(project.id)] == [owner.id]

    setup.delete_project(project.id)
    assert setup.get_project(project.id) is None and setup.key_by_hash("hash-1") is None
    left = [i["pk"]["S"] for i in client.scan(TableName="tenancy")["Items"] if project.id in i["pk"]["S"]]
    assert left == []


def test_a_marker_left_without_its_event_is_cleared_when_unfinished_events_are_read(client: Any) -> None:
    store = DynamoTenancyStore(client, "tenancy")
    kept = PlatformEvent(new_id(), "proj_a", "ADD", EventStatus.PENDING, {}, T0, T0)
    store.save_event(kept)
    orphan = {**key(unfinished_pk("proj_gone"), "2026-01-02T00:00:00#1#x"), "project_id": {"S": "proj_gone"}}
    client.put_item(TableName="tenancy", Item=orphan)

    assert [e.id for e in store.unfinished_events()] == [kept.id]
    markers = [i for i in client.scan(TableName="tenancy")["Items"] if i["pk"]["S"].startswith("T#UNFINISHED")]
    assert [m["project_id"]["S"] for m in markers] == ["proj_a"]
