"""The per-entity memory counts of the DynamoDB memory store: one aggregate item per user, agent, app and run
(`ENT#<type>#<id>`, listed through the `entities` index), so that `count_by_entity` never reads memories.

Each write of the store adjusts the aggregates it touches after its transaction, one atomic update each; see
"Entity aggregates" in README.md beside this file for what that promises and what `rebuild` repairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.attributes import Item, attributes, integer, placeholders, text, text_or_none
from mnemo.adapters.dynamodb.operations import Operations
from mnemo.adapters.dynamodb.schema import ENTITIES, ENTITY_SHARDS, STATE_ATTRIBUTES
from mnemo.domain.entities import EntityCount, EntityType
from mnemo.domain.memory import LifecycleState, MemoryRecord
from mnemo.domain.timefmt import from_iso, iso

# The items of one kind (a sort key: it.MEMORY_SK, it.ENTITY_SK) of a store, with the attributes named.
ItemsOfKind = Callable[[str, Sequence[str]], Iterable[Item]]


@dataclass
class EntityDelta:
    """A change to one entity's aggregate: memories added (negative: removed) and their time bounds."""

    count: int = 0
    oldest: str | None = None  # created_at (iso) of the oldest memory that became active
    latest: str | None = None  # updated_at (iso) of the latest change to an active memory

    def add(self, record: MemoryRecord, sign: int) -> None:
        self.count += sign
        if sign > 0:
            created = iso(record.created_at)
            self.oldest = created if self.oldest is None else min(self.oldest, created)
        if sign >= 0:
            updated = iso(record.updated_at)
            self.latest = updated if self.latest is None else max(self.latest, updated)


def entity_deltas(changes: Iterable[tuple[MemoryRecord, int]]) -> dict[tuple[EntityType, str], EntityDelta]:
    """What memories added (sign 1) and removed (sign -1) change, per user, agent, app and run of their scope."""
    out: dict[tuple[EntityType, str], EntityDelta] = {}
    for record, sign in changes:
        for kind in EntityType:
            value = getattr(record.scope, kind.field)
            if value is not None:
                out.setdefault((kind, value), EntityDelta()).add(record, sign)
    return out


def aggregate_item(kind: EntityType, entity_id: str, delta: EntityDelta, ns: str = "") -> Item:
    """The aggregate of an entity whose active memories add up to `delta` (as counted from scratch)."""
    return {
        **it.entity_key(kind, entity_id, ns=ns),
        **it.entity_identity(kind, entity_id, ns=ns),
        **attributes(total=delta.count, created_min=str(delta.oldest), updated_max=str(delta.latest)),
    }


class EntityCounts:
    """The aggregates of one store: `ns` is its namespace prefix ("" for the plain store)."""

    def __init__(self, ops: Operations, ns: str) -> None:
        self._ops = ops
        self._ns = ns

    def apply(self, changes: Iterable[tuple[MemoryRecord, int]]) -> None:
        """Count memories that became active (sign 1) or stopped being active (sign -1)."""
        for (kind, entity_id), delta in entity_deltas(changes).items():
            self._apply_one(kind, entity_id, delta)

    def _apply_one(self, kind: EntityType, entity_id: str, delta: EntityDelta) -> None:
        """One atomic counter update per entity (never a transaction: a popular agent's aggregate would be a
        hot item that transactions conflict on). The time bounds move only forward: see README.md."""
        entity = it.entity_key(kind, entity_id, ns=self._ns)
        state = self._counted(entity, it.entity_identity(kind, entity_id, ns=self._ns), delta)
        if integer(state, "total") <= 0:
            self._drop(entity)
            return
        oldest = text_or_none(state, "created_min")
        if delta.oldest is not None and (oldest is None or delta.oldest < oldest):
            self._ops.conditionally(
                "update_item",
                Key=entity,
                UpdateExpression="SET #c = :c",
                ConditionExpression="attribute_exists(pk) AND (attribute_not_exists(#c) OR #c > :c)",
                ExpressionAttributeNames={"#c": "created_min"},
                ExpressionAttributeValues=placeholders(c=delta.oldest),
            )

    def _counted(self, entity: Item, identity: Item, delta: EntityDelta) -> Item:
        """The aggregate once `delta.count` is added (and its identity set): with `delta.latest`, `updated_max`
        moves forward too, on condition that it is later; when it is not, the count alone."""
        names = {"#n": "total", **{f"#{k}": k for k in identity}}
        values: dict[str, Any] = {**placeholders(n=delta.count), **{f":{k}": v for k, v in identity.items()}}
        assign = ", ".join(f"#{k} = :{k}" for k in identity)
        request: dict[str, Any] = {
            "Key": entity,
            "UpdateExpression": f"ADD #n :n SET {assign}",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ReturnValues": "ALL_NEW",
        }
        if delta.latest is not None:
            latest = self._ops.conditionally(
                "update_item",
                **{
                    **request,
                    "UpdateExpression": f"ADD #n :n SET {assign}, #u = :u",
                    "ExpressionAttributeNames": {**names, "#u": "updated_max"},
                    "ExpressionAttributeValues": {**values, **placeholders(u=delta.latest)},
                    "ConditionExpression": "attribute_not_exists(#u) OR #u <= :u",
                },
            )
            if latest is not None:
                moved: Item = latest["Attributes"]
                return moved
        counted: Item = self._ops.client.update_item(TableName=self._ops.table, **request)["Attributes"]
        return counted

    def _drop(self, entity: Item) -> None:
        self._ops.conditionally(
            "delete_item",
            Key=entity,
            ConditionExpression="#n <= :zero",
            ExpressionAttributeNames={"#n": "total"},
            ExpressionAttributeValues=placeholders(zero=0),
        )

    def count_by_entity(self) -> list[EntityCount]:
        """Read from the aggregates (one small item per user, agent, app and run), never from the memories."""
        out: list[EntityCount] = []
        for kind in EntityType:
            for shard in range(ENTITY_SHARDS):
                for item in self._ops.items(
                    "query",
                    IndexName=ENTITIES,
                    KeyConditionExpression="ent_pk = :p",
                    ExpressionAttributeValues=placeholders(p=it.entity_partition(kind, shard, ns=self._ns)),
                ):
                    total = integer(item, "total")
                    bounds = [text(item, name) for name in ("created_min", "updated_max") if name in item]
                    if total <= 0 or not bounds:
                        continue
                    created = from_iso(text_or_none(item, "created_min") or bounds[0])
                    updated = from_iso(text_or_none(item, "updated_max") or bounds[0])
                    out.append(EntityCount(kind, text(item, "entity_id"), total, created, updated))
        out.sort(key=lambda e: (e.type.value, e.id))
        return out

    def rebuild(self, items_of_kind: ItemsOfKind) -> int:
        """Recompute every aggregate exactly from the store's memories (a full read: maintenance), and delete
        the aggregates of entities without an active memory. Returns the number of entities."""
        records = (it.record_of(item) for item in items_of_kind(it.MEMORY_SK, STATE_ATTRIBUTES))
        totals = entity_deltas((r, 1) for r in records if r.state is LifecycleState.ACTIVE)
        fresh = [
            {"PutRequest": {"Item": aggregate_item(kind, entity_id, delta, self._ns)}}
            for (kind, entity_id), delta in totals.items()
        ]
        self._ops.batch_write(fresh)
        kept = {text(it.entity_key(kind, entity_id, ns=self._ns), "pk") for kind, entity_id in totals}
        self._ops.delete_many(
            item for item in items_of_kind(it.ENTITY_SK, ("pk", "sk")) if text(item, "pk") not in kept
        )
        return len(fresh)
