"""The DynamoDB store of Dream's reflection state (mnemo.ports.reflection_store), in the accounts table beside the
tenancy items (every partition key under `T#`; no secondary index: every read is a strongly consistent read of the
base table).

| item | `pk` | `sk` | attributes |
|---|---|---|---|
| a project with Synthesis on | `T#DREAM` | `P#<project id>` | — |
| a user of a project | `T#DREAM#<project id>` | `U#<user id>` | `last_run_at`, `claimed_at`, `lease_until` |

An absent attribute stands for None. `enabled_projects` is one Query of the `T#DREAM` partition (one small item
per project with Synthesis on: the schedule's whole read of the directory); `states` one Query of the project's
partition.

**Claims.** `claim` is one conditional UpdateItem, creating the user's item when there is none: no lease, or one
that ended before the claim (`lease_until < :at`), and, for a scheduled run, no run begun after `not_since`. Of any
number of concurrent claims, from any number of processes or functions, one meets the condition. `renew` and
`release` are conditional UpdateItems on the claim's own `claimed_at` (a claim taken over after its lease ended is
not ended by the run that lost it). Moments are compared as text: `moment` writes fixed-width UTC ISO 8601, which
sorts as the moments do.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.codec import Item, key, moment, moment_or_none, string
from mnemo.adapters.dynamodb.operations import Operations, condition_failed, projection
from mnemo.ports.reflection_store import ReflectionState

DREAM = "T#DREAM"
PROJECT = "P#"
USER = "U#"


def enabled_key(project_id: str) -> Item:
    return key(DREAM, f"{PROJECT}{project_id}")


def users_pk(project_id: str) -> str:
    return f"{DREAM}#{project_id}"


def user_key(project_id: str, user_id: str) -> Item:
    return key(users_pk(project_id), f"{USER}{user_id}")


class DynamoReflectionStore:
    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._ops = Operations(client, table_name, page_size=page_size, sleep=sleep)

    def set_enabled(self, project_id: str, enabled: bool) -> None:
        if enabled:
            self._ops.client.put_item(TableName=self._ops.table, Item=enabled_key(project_id))
        else:
            self._ops.delete(enabled_key(project_id))

    def enabled_projects(self) -> list[str]:
        items = self._ops.partition(DREAM, PROJECT)
        return sorted(item["sk"]["S"][len(PROJECT) :] for item in items)

    def states(self, project_id: str) -> dict[str, ReflectionState]:
        states = (_state(item) for item in self._ops.partition(users_pk(project_id), USER))
        return {s.user_id: s for s in states}

    def claim(
        self, project_id: str, user_id: str, at: datetime, *, lease: timedelta, not_since: datetime | None = None
    ) -> bool:
        condition = "(attribute_not_exists(lease_until) OR lease_until < :at)"
        values: Item = {":at": moment(at), ":until": moment(at + lease), ":user": string(user_id)}
        if not_since is not None:
            condition += " AND (attribute_not_exists(last_run_at) OR last_run_at <= :since)"
            values[":since"] = moment(not_since)
        try:
            self._ops.client.update_item(
                TableName=self._ops.table,
                Key=user_key(project_id, user_id),
                UpdateExpression="SET claimed_at = :at, lease_until = :until, user_id = :user",
                ConditionExpression=condition,
                ExpressionAttributeValues=values,
            )
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def renew(self, project_id: str, user_id: str, claimed_at: datetime, at: datetime, *, lease: timedelta) -> bool:
        try:
            self._ops.client.update_item(
                TableName=self._ops.table,
                Key=user_key(project_id, user_id),
                UpdateExpression="SET claimed_at = :at, lease_until = :until",
                ConditionExpression="claimed_at = :claimed",
                ExpressionAttributeValues={
                    ":claimed": moment(claimed_at),
                    ":at": moment(at),
                    ":until": moment(at + lease),
                },
            )
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def release(self, project_id: str, user_id: str, claimed_at: datetime, *, ran: bool) -> None:
        update = "REMOVE lease_until, claimed_at" + (" SET last_run_at = :claimed" if ran else "")
        try:
            self._ops.client.update_item(
                TableName=self._ops.table,
                Key=user_key(project_id, user_id),
                UpdateExpression=update,
                ConditionExpression="claimed_at = :claimed",
                ExpressionAttributeValues={":claimed": moment(claimed_at)},
            )
        except ClientError as exc:
            if not condition_failed(exc):  # another claim replaced this one: it is that run's to end
                raise

    def drop_project(self, project_id: str) -> None:
        keys = self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": string(users_pk(project_id))},
            ConsistentRead=True,
            **projection(["pk", "sk"]),
        )
        self._ops.delete_many([*keys, enabled_key(project_id)])


def _state(item: Item) -> ReflectionState:
    return ReflectionState(
        user_id=item["sk"]["S"][len(USER) :],
        last_run_at=moment_or_none(item, "last_run_at"),
        claimed_at=moment_or_none(item, "claimed_at"),
        lease_until=moment_or_none(item, "lease_until"),
    )
