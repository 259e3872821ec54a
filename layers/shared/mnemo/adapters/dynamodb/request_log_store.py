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

from mnemo.adapters.dynamodb.attributes import (
    Item,
    placeholders,
    text,
)
from mnemo.adapters.dynamodb.codec import WriteOrder, expiry, key, ordered_sk, shard_of
from mnemo.adapters.dynamodb.operations import Operations, projection
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE
from mnemo.domain.request_log import RequestLogEntry

LOG_SHARDS = 8
_OPTIONAL = ("user_id", "key_prefix", "request_id")


def shard_partition(shard: int) -> str:
    return f"LOG#{shard}"


def entry_item(entry: RequestLogEntry, seq: int, retention: timedelta | None) -> Item:
    shard = shard_of(entry.id, LOG_SHARDS)
    item: Item = {**key(shard_partition(shard), ordered_sk(entry.created_at, seq, entry.id)), **as_attributes(entry)}
    if retention is not None:
        item[TTL_ATTRIBUTE] = expiry(entry.created_at + retention)
    return item


def entry_of(item: Item) -> RequestLogEntry:
    return from_item(RequestLogEntry, item)


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
                ExpressionAttributeValues=placeholders(p=shard_partition(shard)),
                ScanIndexForward=False,
                first_page=limit,
            )
            for shard in range(LOG_SHARDS)
        ]
        newest = heapq.merge(*shards, key=lambda item: text(item, "sk"), reverse=True)
        return [entry_of(item) for item in itertools.islice(newest, limit)]

    def prune(self, before: datetime) -> int:
        doomed: list[Item] = []
        for shard in range(LOG_SHARDS):
            doomed.extend(
                self._ops.items(
                    "query",
                    KeyConditionExpression="pk = :p AND sk < :cut",
                    ExpressionAttributeValues=placeholders(p=shard_partition(shard), cut=before),
                    **projection(["pk", "sk"]),
                )
            )
        self._ops.delete_many(doomed)
        return len(doomed)
