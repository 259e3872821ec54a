"""The access log of one namespace on DynamoDB: one small item per retrieved memory, in the memories table, in
the memory's own partition (see README.md, "Access log").

- item: `pk` = the memory's (`NS#<ns>#MEM#<id>`), `sk` = `ACCESS`; `times` (its newest KEPT_ACCESSES access times,
  fixed-width ISO text, newest first), `total` (accesses in all: the item's version), `ns_pk` (the by_namespace
  index, so a dropped project's items go with it). About 800 bytes: one write unit.
- `recent`: one BatchGetItem of the access items (100 keys per call), strongly consistent.
- `record`: one BatchGetItem of the items as they are, then one TransactWriteItems per 50 memories: for each, a
  ConditionCheck that the memory exists and a Put of its merged item on condition that its `total` is still the
  one read (or that it is still absent). A transaction cancelled by a concurrent writer (another process recording
  the same memory) is read and tried again; a memory found deleted is left out, so none gets an item after its
  delete. Two actions per memory, at the price of transactional writes: no lost access and no orphaned item.
- `forget`: BatchWriteItem deletes; `clear`: the namespace's ACCESS keys from the by_namespace index (the plain
  store's from a scan), deleted.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.attributes import Item, attributes, integer, placeholders, python_of, text
from mnemo.adapters.dynamodb.codec import key, key_of
from mnemo.adapters.dynamodb.operations import Operations, TransactionCancelledError, projection
from mnemo.adapters.dynamodb.schema import BY_NAMESPACE, NAMESPACE_SHARDS
from mnemo.domain.timefmt import from_iso
from mnemo.ports.memory_access import merged

log = logging.getLogger("mnemo.dynamodb")

ACCESS_SK = "ACCESS"
MEMORIES_PER_TRANSACTION = 50  # two actions each: a transaction holds 100
_MAX_ATTEMPTS = 12  # optimistic rounds of one chunk before its accesses are dropped (each after a jittered wait)


class DynamoAccessLog:
    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        namespace: str | None = None,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._ops = Operations(client, table_name, page_size=page_size, sleep=sleep)
        self._sleep = sleep
        self._ns = "" if namespace is None else it.namespace_prefix(namespace)

    def _key(self, memory_id: str) -> Item:
        return key(it.memory_pk(memory_id, self._ns), ACCESS_SK)

    def record(self, accesses: Mapping[str, Sequence[datetime]]) -> None:
        wanted = [memory_id for memory_id, times in accesses.items() if times]
        for start in range(0, len(wanted), MEMORIES_PER_TRANSACTION):
            self._record_chunk({i: accesses[i] for i in wanted[start : start + MEMORIES_PER_TRANSACTION]})

    def _record_chunk(self, accesses: dict[str, Sequence[datetime]]) -> None:
        for _attempt in range(_MAX_ATTEMPTS):
            if not accesses:
                return
            ids = list(accesses)
            kept = {text(item, "id"): item for item in self._ops.batch_get([self._key(i) for i in ids])}
            actions: list[dict[str, Any]] = []
            for memory_id in ids:
                actions.append(self._memory_exists(memory_id))
                actions.append(self._put(memory_id, kept.get(memory_id), accesses[memory_id]))
            try:
                self._ops.transact(actions)
                return
            except TransactionCancelledError as cancelled:
                gone = [i for n, i in enumerate(ids) if cancelled.failed(2 * n)]
                for memory_id in gone:  # deleted: it gets no accesses; the others are tried again
                    del accesses[memory_id]
                # Another writer changed an item meanwhile: wait a little (full jitter), so that writers racing on
                # the same memory take turns instead of colliding again at once.
                self._sleep(min(0.005 * 2**_attempt, 0.25) * random.random())
        log.warning("the accesses of %d memories kept changing while being recorded: dropped", len(accesses))

    def _memory_exists(self, memory_id: str) -> dict[str, Any]:
        return {
            "ConditionCheck": {
                "TableName": self._ops.table,
                "Key": it.memory_key(memory_id, self._ns),
                "ConditionExpression": "attribute_exists(pk)",
            }
        }

    def _put(self, memory_id: str, kept: Item | None, added: Sequence[datetime]) -> dict[str, Any]:
        """The Put of the memory's merged item, on the condition that it is still as read (its `total`)."""
        before = _times(kept) if kept else []
        total = integer(kept, "total") if kept else 0
        item_key = self._key(memory_id)
        item: Item = {
            **item_key,
            **attributes(id=memory_id, times=list(merged(before, added)), total=total + len(added)),
            **it.namespace_entry(text(item_key, "pk")),
        }
        put: dict[str, Any] = {"TableName": self._ops.table, "Item": item}
        if kept is None:
            put["ConditionExpression"] = "attribute_not_exists(pk)"
        else:
            put["ConditionExpression"] = "#total = :total"
            put["ExpressionAttributeNames"] = {"#total": "total"}
            put["ExpressionAttributeValues"] = placeholders(total=total)
        return {"Put": put}

    def recent(self, memory_ids: Sequence[str]) -> dict[str, list[datetime]]:
        found = self._ops.batch_get([self._key(i) for i in dict.fromkeys(memory_ids)], ["id", "times"])
        return {text(item, "id"): times for item in found if (times := _times(item))}

    def forget(self, memory_ids: Sequence[str]) -> None:
        self._ops.delete_many(self._key(i) for i in dict.fromkeys(memory_ids))

    def clear(self) -> None:
        self._ops.delete_many(self._access_keys())

    def _access_keys(self) -> list[Item]:
        if self._ns:
            found = [
                key_of(item)
                for shard in range(NAMESPACE_SHARDS)
                for item in self._ops.items(
                    "query",
                    IndexName=BY_NAMESPACE,
                    KeyConditionExpression="ns_pk = :p",
                    ExpressionAttributeValues=placeholders(p=it.namespace_partition(shard, self._ns)),
                )
            ]
            return [k for k in found if text(k, "sk") == ACCESS_SK]
        request = projection(["pk", "sk"])
        request["ExpressionAttributeValues"] = placeholders(access=ACCESS_SK, ns=it.NAMESPACE_MARK)
        request["FilterExpression"] = "#p1 = :access AND NOT begins_with(#p0, :ns)"
        return [key_of(item) for item in self._ops.items("scan", ConsistentRead=True, **request)]


def _times(item: Item) -> list[datetime]:
    return [from_iso(t) for t in python_of(item["times"])] if "times" in item else []
