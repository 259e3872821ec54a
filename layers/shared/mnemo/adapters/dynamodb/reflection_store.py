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
not ended by the run that lost it). Moments are compared as text: attributes.value writes them as fixed-width UTC
ISO 8601, which sorts as the moments do.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from mnemo.adapters.dynamodb.attributes import Item, placeholders, text
from mnemo.adapters.dynamodb.codec import key
from mnemo.adapters.dynamodb.record_codec import from_item
from mnemo.adapters.dynamodb.table_store import TableStore
from mnemo.ports.reflection_store import ReflectionState

DREAM = "T#DREAM"
PROJECT = "P#"
USER = "U#"
_OWN = "claimed_at = :claimed"  # the claim is still the caller's own


def enabled_key(project_id: str) -> Item:
    return key(DREAM, f"{PROJECT}{project_id}")


def users_pk(project_id: str) -> str:
    return f"{DREAM}#{project_id}"


def user_key(project_id: str, user_id: str) -> Item:
    return key(users_pk(project_id), f"{USER}{user_id}")


class DynamoReflectionStore(TableStore):
    def set_enabled(self, project_id: str, enabled: bool) -> None:
        if enabled:
            self._ops.client.put_item(TableName=self._ops.table, Item=enabled_key(project_id))
        else:
            self._ops.delete(enabled_key(project_id))

    def enabled_projects(self) -> list[str]:
        items = self._ops.partition(DREAM, PROJECT)
        return sorted(text(item, "sk")[len(PROJECT) :] for item in items)

    def states(self, project_id: str) -> dict[str, ReflectionState]:
        states = (_state(item) for item in self._ops.partition(users_pk(project_id), USER))
        return {s.user_id: s for s in states}

    def claim(
        self, project_id: str, user_id: str, at: datetime, *, lease: timedelta, not_since: datetime | None = None
    ) -> bool:
        condition = "(attribute_not_exists(lease_until) OR lease_until < :at)"
        values: Item = placeholders(at=at, until=at + lease, user=user_id)
        if not_since is not None:
            condition += " AND (attribute_not_exists(last_run_at) OR last_run_at <= :since)"
            values |= placeholders(since=not_since)
        update = "SET claimed_at = :at, lease_until = :until, user_id = :user"
        return self._update_user(project_id, user_id, update, condition, values)

    def renew(self, project_id: str, user_id: str, claimed_at: datetime, at: datetime, *, lease: timedelta) -> bool:
        values = placeholders(claimed=claimed_at, at=at, until=at + lease)
        return self._update_user(project_id, user_id, "SET claimed_at = :at, lease_until = :until", _OWN, values)

    def release(self, project_id: str, user_id: str, claimed_at: datetime, *, ran: bool) -> None:
        """Nothing when another claim replaced this one: it is that run's to end."""
        update = "REMOVE lease_until, claimed_at" + (" SET last_run_at = :claimed" if ran else "")
        self._update_user(project_id, user_id, update, _OWN, placeholders(claimed=claimed_at))

    def _update_user(self, project_id: str, user_id: str, update: str, condition: str, values: Item) -> bool:
        """One conditional UpdateItem of the user's item; whether its condition held."""
        reply = self._ops.conditionally(
            "update_item",
            Key=user_key(project_id, user_id),
            UpdateExpression=update,
            ConditionExpression=condition,
            ExpressionAttributeValues=values,
        )
        return reply is not None

    def drop_project(self, project_id: str) -> None:
        keys = self._ops.partition_keys(users_pk(project_id), consistent=True)
        self._ops.delete_many([*keys, enabled_key(project_id)])


def _state(item: Item) -> ReflectionState:
    return from_item(ReflectionState, item, user_id=text(item, "sk")[len(USER) :])
