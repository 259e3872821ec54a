"""Bringing platform items written by an earlier version up to the current layout (`mnemo platform upgrade`).
Idempotent: run it once after deploying a version that changed the layout; running it again changes nothing.

- Memories table: every item of a namespace (a platform project) gets its `ns_pk` entry in the by_namespace
  index, without which dropping or re-embedding the project would miss it.
- Accounts table: each project's event counts (`EVENTCOUNT#<type>`) are set to the number of its stored events,
  and the markers of unfinished events move from the one `T#UNFINISHED` partition to their project's shard.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.codec import key_of
from mnemo.adapters.dynamodb.operations import Operations, condition_failed, projection
from mnemo.adapters.dynamodb.tenancy_store import UNFINISHED, event_count_key, events_pk, unfinished_marker

_EVENTS = events_pk("")  # "T#EVENTS#": the prefix of every project's event partition


@dataclass(frozen=True, slots=True)
class UpgradeReport:
    indexed: int  # namespace items given their by_namespace entry
    event_counts: int  # (project, event type) counts written
    markers_moved: int  # unfinished-event markers moved to their shard


def upgrade_platform_items(
    dynamodb: Any, memories_table: str, accounts_table: str, *, page_size: int | None = None
) -> UpgradeReport:
    return UpgradeReport(
        indexed=_index_namespace_items(Operations(dynamodb, memories_table, page_size=page_size)),
        event_counts=_count_events(Operations(dynamodb, accounts_table, page_size=page_size)),
        markers_moved=_shard_markers(Operations(dynamodb, accounts_table, page_size=page_size)),
    )


def _index_namespace_items(ops: Operations) -> int:
    request = projection(["pk", "sk"])
    request["ExpressionAttributeNames"]["#ns"] = "ns_pk"
    request["ExpressionAttributeValues"] = {":mark": {"S": it.NAMESPACE_MARK}}
    request["FilterExpression"] = "begins_with(#p0, :mark) AND attribute_not_exists(#ns)"
    done = 0
    for item in ops.items("scan", ConsistentRead=True, **request):
        entry = it.namespace_entry(item["pk"]["S"])
        try:
            ops.client.update_item(
                TableName=ops.table,
                Key=key_of(item),
                UpdateExpression="SET ns_pk = :p",
                ConditionExpression="attribute_exists(pk)",  # deleted meanwhile: stays deleted
                ExpressionAttributeValues={":p": entry["ns_pk"]},
            )
            done += 1
        except ClientError as exc:
            if not condition_failed(exc):
                raise
    return done


def _count_events(ops: Operations) -> int:
    request = projection(["pk", "event_type"])
    request["ExpressionAttributeValues"] = {":events": {"S": _EVENTS}}
    request["FilterExpression"] = "begins_with(#p0, :events)"
    counts: Counter[tuple[str, str]] = Counter(
        (item["pk"]["S"][len(_EVENTS) :], item["event_type"]["S"])
        for item in ops.items("scan", ConsistentRead=True, **request)
    )
    for (project_id, event_type), count in counts.items():
        ops.client.put_item(
            TableName=ops.table,
            Item={**event_count_key(project_id, event_type), "value": {"N": str(count)}},
        )
    return len(counts)


def _shard_markers(ops: Operations) -> int:
    moved = 0
    for marker in ops.items(
        "query", KeyConditionExpression="pk = :pk", ExpressionAttributeValues={":pk": {"S": UNFINISHED}}
    ):
        ops.transact(
            [
                ops.put(unfinished_marker(marker["project_id"]["S"], marker["sk"]["S"])),
                {"Delete": {"TableName": ops.table, "Key": key_of(marker)}},
            ]
        )
        moved += 1
    return moved
