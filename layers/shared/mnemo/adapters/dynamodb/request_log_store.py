"""The API call log on its own DynamoDB table (see ACCOUNTS.md beside this file).

Entries are spread over `LOG_SHARDS` partitions (by a hash of their id), each sorted by creation time, so that
writes never pile onto one partition; the newest entries are the merge of each shard's newest. Each entry carries
a TTL attribute at its creation plus the retention period: DynamoDB deletes old entries by itself, and `prune`
(a query per shard) exists for the contract and local tools.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from mnemo.adapters.dynamodb.codec import (
    Item,
    WriteOrder,
    expiry,
    key,
    moment,
    moment_of,
    optional,
    ordered_sk,
    shard_of,
    text_or_none,
)
from mnemo.adapters.dynamodb.operations import Operations, projection
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE
from mnemo.domain.request_log import RequestLogEntry

LOG_SHARDS = 8
_OPTIONAL = ("user_id", "key_prefix", "request_id")


def shard_partition(shard: int) -> str:
    return f"LOG#{shard}"


def entry_item(entry: RequestLogEntry, seq: int, retention: timedelta | None) -> Item:
    shard = shard_of(entry.id, LOG_SHARDS)
    item: Item = {
        **key(shard_partition(shard), ordered_sk(entry.created_at, seq, entry.id)),
        "id": {"S": entry.id},
        "method": {"S": entry.method},
        "path": {"S": entry.path},
        "status_code": {"N": str(entry.status_code)},
        "latency_ms": {"N": repr(float(entry.latency_ms))},
        "auth_type": {"S": entry.auth_type},
        "created_at": moment(entry.created_at),
        **optional(**{name: getattr(entry, name) for name in _OPTIONAL}),
    }
    if retention is not None:
        item[TTL_ATTRIBUTE] = expiry(entry.created_at + retention)
    return item


def entry_of(item: Item) -> RequestLogEntry:
    return RequestLogEntry(
        id=item["id"]["S"],
        method=item["method"]["S"],
        path=item["path"]["S"],
        status_code=int(item["status_code"]["N"]),
        latency_ms=float(item["latency_ms"]["N"]),
        auth_type=item["auth_type"]["S"],
        created_at=moment_of(item, "created_at"),
        **{name: text_or_none(item, name) for name in _OPTIONAL},
    )


class DynamoRequestLogStore:
    def __init__(
        self, client: Any, table_name: str, *, retention: timedelta | None = None, page_size: int | None = None
    ) -> None:
        """`retention`: how long DynamoDB keeps an entry (its TTL); None writes no TTL."""
        self._ops = Operations(client, table_name, page_size=page_size)
        self._retention = retention
        self._order = WriteOrder()

    def append(self, entries: Sequence[RequestLogEntry]) -> None:
        items = [entry_item(e, self._order.next(), self._retention) for e in entries]
        self._ops.batch_write([{"PutRequest": {"Item": item}} for item in items])

    def recent(self, limit: int) -> list[RequestLogEntry]:
        if limit <= 0:
            return []
        shards = [
            self._ops.items(
                "query",
                KeyConditionExpression="pk = :p",
                ExpressionAttributeValues={":p": {"S": shard_partition(shard)}},
                ScanIndexForward=False,
                first_page=limit,
            )
            for shard in range(LOG_SHARDS)
        ]
        newest = heapq.merge(*shards, key=lambda item: item["sk"]["S"], reverse=True)
        return [entry_of(item) for item in itertools.islice(newest, limit)]

    def prune(self, before: datetime) -> int:
        doomed: list[Item] = []
        for shard in range(LOG_SHARDS):
            doomed.extend(
                self._ops.items(
                    "query",
                    KeyConditionExpression="pk = :p AND sk < :cut",
                    ExpressionAttributeValues={":p": {"S": shard_partition(shard)}, ":cut": moment(before)},
                    **projection(["pk", "sk"]),
                )
            )
        self._ops.delete_many(doomed)
        return len(doomed)
