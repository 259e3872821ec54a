"""Bringing platform items written by an earlier version up to the current layout (`mnemo platform upgrade`).
Idempotent: run it once after deploying a version that changed the layout; running it again changes nothing.

- Memories table: every item of a namespace (a platform project) gets its `ns_pk` entry in the by_namespace
  index, without which dropping or re-embedding the project would miss it.
- Memories table: every app's memory count (`ENT#app#<id>`, what GET /v1/entities/ lists apps from) is set from
  its active memories, in every namespace and in the plain store; earlier versions counted users, agents and runs
  only. An app count left without an active memory is deleted.
- Accounts table: every project member gets the pointer in their user partition (`PROJ#<project id>`) that lists
  the projects they belong to directly, which earlier versions did not write.
- Accounts table: each project's event counts (`EVENTCOUNT#<type>`) are set to the number of its stored events,
  and the markers of unfinished events move from the one `T#UNFINISHED` partition to their project's shard.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.attributes import attributes, placeholders, text
from mnemo.adapters.dynamodb.codec import key_of
from mnemo.adapters.dynamodb.entity_counts import EntityDelta, aggregate_item
from mnemo.adapters.dynamodb.operations import Operations, projection
from mnemo.adapters.dynamodb.schema import RECORD_ATTRIBUTES
from mnemo.adapters.dynamodb.tenancy_store import UNFINISHED, event_count_key, events_pk, unfinished_marker
from mnemo.adapters.dynamodb.tenancy_store.items import project_of_user_item
from mnemo.adapters.dynamodb.tenancy_store.keys import MEMBER, project_pk
from mnemo.domain.entities import EntityType
from mnemo.domain.memory import LifecycleState

_EVENTS = events_pk("")  # "T#EVENTS#": the prefix of every project's event partition
_PROJECTS = project_pk("")  # "T#PROJ#": the prefix of every project's partition


@dataclass(frozen=True, slots=True)
class UpgradeReport:
    indexed: int  # namespace items given their by_namespace entry
    app_counts: int  # app aggregates set from the apps' active memories
    event_counts: int  # (project, event type) counts written
    markers_moved: int  # unfinished-event markers moved to their shard
    member_pointers: int = 0  # project members given the pointer from their user partition


def upgrade_platform_items(
    dynamodb: Any, memories_table: str, accounts_table: str, *, page_size: int | None = None
) -> UpgradeReport:
    return UpgradeReport(
        indexed=_index_namespace_items(Operations(dynamodb, memories_table, page_size=page_size)),
        app_counts=_count_apps(Operations(dynamodb, memories_table, page_size=page_size)),
        event_counts=_count_events(Operations(dynamodb, accounts_table, page_size=page_size)),
        markers_moved=_shard_markers(Operations(dynamodb, accounts_table, page_size=page_size)),
        member_pointers=_point_to_projects(Operations(dynamodb, accounts_table, page_size=page_size)),
    )


def _index_namespace_items(ops: Operations) -> int:
    request = projection(["pk", "sk"])
    request["ExpressionAttributeNames"]["#ns"] = "ns_pk"
    request["ExpressionAttributeValues"] = placeholders(mark=it.NAMESPACE_MARK)
    request["FilterExpression"] = "begins_with(#p0, :mark) AND attribute_not_exists(#ns)"
    done = 0
    for item in ops.items("scan", ConsistentRead=True, **request):
        entry = it.namespace_entry(text(item, "pk"))
        indexed = ops.conditionally(
            "update_item",
            Key=key_of(item),
            UpdateExpression="SET ns_pk = :p",
            ConditionExpression="attribute_exists(pk)",  # deleted meanwhile: stays deleted
            ExpressionAttributeValues={":p": entry["ns_pk"]},
        )
        done += indexed is not None
    return done


def _count_apps(ops: Operations) -> int:
    """Every app aggregate recomputed from a consistent scan of the active memories that have an app_id, as
    `rebuild_entity_counts` does for a whole store; the aggregates of apps without any are deleted. A write that
    lands during the scan may leave its app's count off by its memories (as `mnemo reindex`); running it again
    when the table is quiet makes it exact."""
    names = ["pk", "sk", *RECORD_ATTRIBUTES]
    request = projection(names)
    alias = {name: f"#p{i}" for i, name in enumerate(names)}
    request["ExpressionAttributeValues"] = placeholders(mem=it.MEMORY_SK, active=LifecycleState.ACTIVE)
    request["FilterExpression"] = (
        f"{alias['sk']} = :mem AND attribute_exists({alias['app_id']}) AND {alias['state']} = :active"
    )
    totals: dict[tuple[str, str], EntityDelta] = {}
    for item in ops.items("scan", ConsistentRead=True, **request):
        record = it.record_of(item)
        if record.scope.app_id is not None:
            totals.setdefault((_prefix_of(text(item, "pk")), record.scope.app_id), EntityDelta()).add(record, 1)
    ops.batch_write(
        [
            {"PutRequest": {"Item": aggregate_item(EntityType.APP, app_id, delta, ns)}}
            for (ns, app_id), delta in totals.items()
        ]
    )
    kept = {text(it.entity_key(EntityType.APP, app_id, ns), "pk") for ns, app_id in totals}
    stale = projection(["pk", "sk", "entity_type"])
    stale["ExpressionAttributeValues"] = placeholders(ent=it.ENTITY_SK, app=EntityType.APP)
    stale["FilterExpression"] = "#p1 = :ent AND #p2 = :app"
    ops.delete_many(item for item in ops.items("scan", ConsistentRead=True, **stale) if text(item, "pk") not in kept)
    return len(totals)


def _prefix_of(pk: str) -> str:
    """The namespace prefix of a memories-table key (`NS#<namespace>#`), "" for the plain store's."""
    if not pk.startswith(it.NAMESPACE_MARK):
        return ""
    return pk[: pk.index("#", len(it.NAMESPACE_MARK)) + 1]


def _count_events(ops: Operations) -> int:
    request = projection(["pk", "event_type"])
    request["ExpressionAttributeValues"] = placeholders(events=_EVENTS)
    request["FilterExpression"] = "begins_with(#p0, :events)"
    counts: Counter[tuple[str, str]] = Counter(
        (text(item, "pk")[len(_EVENTS) :], text(item, "event_type"))
        for item in ops.items("scan", ConsistentRead=True, **request)
    )
    for (project_id, event_type), count in counts.items():
        ops.client.put_item(
            TableName=ops.table,
            Item={**event_count_key(project_id, event_type), **attributes(value=count)},
        )
    return len(counts)


def _shard_markers(ops: Operations) -> int:
    moved = 0
    for marker in ops.items(
        "query", KeyConditionExpression="pk = :pk", ExpressionAttributeValues=placeholders(pk=UNFINISHED)
    ):
        ops.transact(
            [
                ops.put(unfinished_marker(text(marker, "project_id"), text(marker, "sk"))),
                {"Delete": {"TableName": ops.table, "Key": key_of(marker)}},
            ]
        )
        moved += 1
    return moved


def _point_to_projects(ops: Operations) -> int:
    """Each project member's pointer from their user partition, written again when it is there already (the same
    item): a member removed during the scan may keep a pointer to a project they left, which lists nothing, as the
    reads check the membership."""
    request = projection(["pk", "sk", "user_id"])
    request["ExpressionAttributeValues"] = placeholders(projects=_PROJECTS, member=MEMBER)
    request["FilterExpression"] = "begins_with(#p0, :projects) AND begins_with(#p1, :member)"
    pointers = [
        project_of_user_item(text(item, "user_id"), text(item, "pk")[len(_PROJECTS) :])
        for item in ops.items("scan", ConsistentRead=True, **request)
    ]
    ops.batch_write([{"PutRequest": {"Item": pointer}} for pointer in pointers])
    return len(pointers)
