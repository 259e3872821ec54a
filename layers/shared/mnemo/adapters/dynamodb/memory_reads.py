"""The reads of the DynamoDB memory store: a memory by id, the memories a filter selects (from the narrowest index
it pins, newest first), a text's claim, history, every memory with its embedding, settings and entity counts. See
"Access patterns" in README.md beside this file."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.attributes import Item, placeholders, text, text_or_none
from mnemo.adapters.dynamodb.codec import json_of
from mnemo.adapters.dynamodb.memory_table import MemoryTable
from mnemo.adapters.dynamodb.schema import (
    BY_AGENT,
    BY_RUN,
    BY_TIME,
    BY_USER,
    RECORD_ATTRIBUTES,
    STATE_ATTRIBUTES,
    TIME_SHARDS,
)
from mnemo.domain import filters as f
from mnemo.domain.entities import EntityCount
from mnemo.domain.memory import HistoryEntry, MemoryRecord, Scope
from mnemo.ports.embedder import Vectors

_SCOPE_INDEXES = (("run_id", BY_RUN), ("user_id", BY_USER), ("agent_id", BY_AGENT))  # preference on ties
_INDEX_KEYS = {BY_USER: "user_pk", BY_AGENT: "agent_pk", BY_RUN: "run_pk", BY_TIME: "time_pk"}


class MemoryReads(MemoryTable):
    def get(self, memory_id: str) -> MemoryRecord | None:
        item = self._ops.get(it.memory_key(memory_id, ns=self._ns), RECORD_ATTRIBUTES)
        return it.record_of(item) if item is not None else None

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        found = self._ops.batch_get([it.memory_key(i, ns=self._ns) for i in memory_ids], RECORD_ATTRIBUTES)
        return {text(item, "id"): it.record_of(item) for item in found}

    def find(self, expr: f.Expr, limit: int | None = None, offset: int = 0) -> list[MemoryRecord]:
        if limit is not None and limit <= 0:
            return []
        out: list[MemoryRecord] = []
        skipped = 0
        for record in self._matching(expr, None if limit is None else offset + limit):
            if skipped < offset:
                skipped += 1
                continue
            out.append(record)
            if limit is not None and len(out) >= limit:
                break
        return out

    def count(self, expr: f.Expr) -> int:
        return sum(1 for _ in self._matching(expr))

    def _matching(self, expr: f.Expr, wanted: int | None = None) -> Iterator[MemoryRecord]:
        check = f.predicate(expr)
        for item in self._newest_first(expr, wanted):
            record = it.record_of(item)
            if check(record.filter_document()):
                yield record

    def _newest_first(self, expr: f.Expr, wanted: int | None) -> Iterator[Item]:
        """Candidate items, newest first, from the narrowest place the filter pins: ids, a scope index, or
        the sharded time index for an unscoped filter. `wanted`: how many the caller needs at most."""
        ids = f.pinned_values(expr, "id")
        if ids is not None:
            found = self._ops.batch_get([it.memory_key(i, ns=self._ns) for i in sorted(ids)], RECORD_ATTRIBUTES)
            yield from sorted(found, key=lambda item: text(item, "created_sk"), reverse=True)
            return
        pinned: list[tuple[int, int, str, list[str]]] = []
        for rank, (field, index) in enumerate(_SCOPE_INDEXES):
            values = f.pinned_values(expr, field)
            if values is None:
                continue
            if not values:
                return
            pinned.append(
                (len(values), rank, index, [it.scope_partition(field, v, ns=self._ns) for v in sorted(values)])
            )
        if pinned:
            _, _, index, partitions = min(pinned)  # the fewest partitions; run before user before agent
        else:
            index, partitions = BY_TIME, [it.time_partition(s, ns=self._ns) for s in range(TIME_SHARDS)]
        key_name = _INDEX_KEYS[index]
        streams = [
            self._ops.items(
                "query",
                IndexName=index,
                KeyConditionExpression=f"{key_name} = :p",
                ExpressionAttributeValues=placeholders(p=partition),
                ScanIndexForward=False,
                first_page=wanted,
            )
            for partition in partitions
        ]
        yield from heapq.merge(*streams, key=lambda item: text(item, "created_sk"), reverse=True)

    def find_by_hash(self, scope: Scope, text_hash: str) -> MemoryRecord | None:
        claim = it.claim_pk(scope, text_hash, ns=self._ns)
        held = self._ops.get(it.claim_key(claim))
        if held is None:
            return None
        item = self._ops.get(it.memory_key(text(held, "memory_id"), ns=self._ns), STATE_ATTRIBUTES)
        if item is None or text_or_none(item, "guard") != claim:
            return None  # a claim left behind; insert clears it
        return it.record_of(item)

    def history(self, memory_id: str) -> list[HistoryEntry]:
        return [it.history_of(i) for i in self._ops.partition(it.memory_pk(memory_id, ns=self._ns), it.HISTORY_PREFIX)]

    def recent_history(self, limit: int) -> list[HistoryEntry]:
        """A namespace's through its by_namespace keys (every history key, then the items: a project's history is
        read whole to be ordered), the plain store's by a consistent table scan."""
        if limit <= 0:
            return []
        if self._ns:
            keys = [k for k in self._namespace_keys() if text(k, "sk").startswith(it.HISTORY_PREFIX)]
            items: list[Item] = []
            for start in range(0, len(keys), 1000):
                items += self._ops.batch_get(keys[start : start + 1000], None)
        else:
            request: dict[str, Any] = {
                "ExpressionAttributeNames": {"#sk": "sk"},
                "ExpressionAttributeValues": placeholders(hist=it.HISTORY_PREFIX),
            }
            items = list(self._ops.items("scan", ConsistentRead=True, **self._own(request, "begins_with(#sk, :hist)")))
        entries = [it.history_of(item) for item in items]
        entries.sort(key=lambda e: (e.updated_at, e.id), reverse=True)
        return entries[:limit]

    def scan(self, batch_size: int = 1000) -> Iterator[tuple[list[MemoryRecord], Vectors]]:
        """Every memory with its embedding (a paginated, consistent table scan), in batches of `batch_size`."""
        records: list[MemoryRecord] = []
        vectors: list[Vectors] = []
        for item in self._items_of_kind(it.MEMORY_SK, (*RECORD_ATTRIBUTES, "vec")):
            records.append(it.record_of(item))
            vectors.append(it.vector_of(item))
            if len(records) == batch_size:
                yield records, np.stack(vectors)
                records, vectors = [], []
        if records:
            yield records, np.stack(vectors)

    def get_setting(self, key: str) -> Any | None:
        item = self._ops.get(it.setting_key(key, ns=self._ns))
        return None if item is None else json_of(item, "value")

    def count_by_entity(self) -> list[EntityCount]:
        """Read from the entity aggregates (one small item per user, agent, app and run), never from the memories."""
        return self._entities.count_by_entity()
