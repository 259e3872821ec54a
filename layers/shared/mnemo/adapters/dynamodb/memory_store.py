"""The DynamoDB record store for memories, history, entity counts and settings: one table, see README.md.

The boto3 client is passed in (the composition root builds it); the table must exist (see schema.py). The
per-entity counts are kept by entity_counts.py. A platform namespace's store may also write the webhook events of
its changes (`change_events`) into the table's outbox (outbox.py), in the very transactions that make the changes.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np
from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.codec import Item, WriteOrder, json_of, key_of, ordered_sk, seq_of
from mnemo.adapters.dynamodb.entity_counts import EntityCounts
from mnemo.adapters.dynamodb.operations import (
    MAX_TRANSACTION,
    Operations,
    TransactionCancelledError,
    condition_failed,
    fitting,
    item_size,
    projection,
)
from mnemo.adapters.dynamodb.outbox import OutboxPartition, notify
from mnemo.adapters.dynamodb.schema import (
    BY_AGENT,
    BY_NAMESPACE,
    BY_RUN,
    BY_TIME,
    BY_USER,
    NAMESPACE_SHARDS,
    RECORD_ATTRIBUTES,
    STATE_ATTRIBUTES,
    TIME_SHARDS,
)
from mnemo.domain import filters as f
from mnemo.domain.entities import EntityCount
from mnemo.domain.erasure import Erasure, redacted_sources, textless
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope, now
from mnemo.domain.provenance import sibling_links
from mnemo.domain.webhooks import OutboundEvent, change_events
from mnemo.errors import ConflictError, NotFoundError
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_store import DuplicateMemoryError

log = logging.getLogger("mnemo.dynamodb")

_SCOPE_INDEXES = (("run_id", BY_RUN), ("user_id", BY_USER), ("agent_id", BY_AGENT))  # preference on ties
TRANSACTION_BYTES = 3_500_000  # a TransactWriteItems holds 4 MB at most
KEPT_VECTOR_BYTES = 12_288  # what an update that keeps the embedding counts for it: 3,072 float32 dimensions

_INDEX_KEYS = {BY_USER: "user_pk", BY_AGENT: "agent_pk", BY_RUN: "run_pk", BY_TIME: "time_pk"}
_MAX_RETRIES = 5


class DynamoMemoryStore:
    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        namespace: str | None = None,
        outbox: bool = False,
        on_outbox: Callable[[], None] | None = None,
    ) -> None:
        """`page_size` caps the items per Query/Scan page (None: DynamoDB's 1 MB pages); tests set it small.
        `sleep` waits between retries of unprocessed batch items and transaction conflicts. `namespace` (a
        platform project) prefixes every partition key this store writes and queries, in the table and the
        indexes: it sees only its namespace's items, and the plain store (None) sees no namespaced item.

        With `outbox` (a namespace's store only), every insert, replace and remove also puts its webhook events
        (`change_events`, carrying the namespace) into the table's outbox partition in the same transaction as the
        change, and the store is its namespace's ChangeOutbox; `on_outbox` is called after each write that put
        some (a wake-up for whoever publishes them; its errors are logged, never raised into the write)."""
        if outbox and namespace is None:
            raise ValueError("An outbox belongs to a namespace's store: its events name their project.")
        self._ops = Operations(client, table_name, page_size=page_size, sleep=sleep)
        self._seq = WriteOrder()
        self.namespace = namespace
        self._ns = "" if namespace is None else it.namespace_prefix(namespace)
        self._entities = EntityCounts(self._ops, self._ns)
        self._outbox = (
            OutboxPartition(self._ops, it.OUTBOX_PK, namespace=namespace, order=self._seq) if outbox else None
        )
        self._on_outbox = on_outbox

    def _own(self, request: dict[str, Any], condition: str | None = None) -> dict[str, Any]:
        """A Scan request restricted to this store's items (a namespace's prefix, or no namespace's), and
        `condition` if given: table-wide maintenance (scan, clear, rebuild) never crosses namespaces."""
        mine = "begins_with(pk, :ns)" if self._ns else "NOT begins_with(pk, :ns) AND pk <> :outbox"
        request = {**request, "ExpressionAttributeValues": {**request.get("ExpressionAttributeValues", {})}}
        request["ExpressionAttributeValues"][":ns"] = {"S": self._ns or it.NAMESPACE_MARK}
        if not self._ns:
            request["ExpressionAttributeValues"][":outbox"] = {"S": it.OUTBOX_PK}
        request["FilterExpression"] = mine if condition is None else f"({condition}) AND {mine}"
        return request

    # ---- writes -------------------------------------------------------------------------------------

    def insert(self, records: Sequence[MemoryRecord], vectors: Vectors, history: Sequence[HistoryEntry]) -> None:
        """All or nothing per transaction of up to 100 items (about 30 memories with their claims and history);
        a larger batch is split, each part atomic. An active memory whose scope and text hash another active
        memory already holds raises DuplicateMemoryError (a concurrent add won the race)."""
        if len(records) != len(vectors):
            raise ValueError(f"{len(records)} records but {len(vectors)} vectors.")
        claims = [it.claim_of(r, ns=self._ns) for r in records]
        seen: dict[str, str] = {}
        for record, claim in zip(records, claims, strict=True):
            if claim is not None and seen.setdefault(claim, record.id) != record.id:
                raise DuplicateMemoryError(seen[claim], record.scope, record.hash)
        entries: dict[str, list[HistoryEntry]] = {}
        for entry in history:
            entries.setdefault(entry.memory_id, []).append(entry)
        groups: list[tuple[list[dict[str, Any]], MemoryRecord | None]] = []
        links = sibling_links(records)
        for record, vector, claim in zip(records, vectors, claims, strict=True):
            item = it.memory_item(record, vector, self._seq.next(), ns=self._ns)
            actions = [self._ops.put_new({**item, **it.links_attribute(links.get(record.id, []))})]
            if claim is not None:
                actions.append(self._ops.put_new(it.claim_item(claim, record.id)))
            own = entries.pop(record.id, [])
            actions.extend(self._ops.put(it.history_item(h, self._seq.next(), ns=self._ns)) for h in own)
            actions.extend(self._event_puts([record], own, {}))  # the memory's events travel with it
            groups.append((actions, record))
        orphans = [
            self._ops.put(it.history_item(h, self._seq.next(), ns=self._ns)) for hs in entries.values() for h in hs
        ]
        groups.extend(([action], None) for action in orphans)
        wrote = False
        try:
            for chunk in _chunks(groups):
                self._insert_chunk(chunk)
                wrote = wrote or any(self._is_event(a) for group, _ in chunk for a in group)
                stored = (r for _, r in chunk if r is not None and r.state is LifecycleState.ACTIVE)
                self._entities.apply((r, 1) for r in stored)
        finally:
            self._notify(wrote)  # the parts already committed put their events: they are to be published

    def _insert_chunk(self, chunk: list[tuple[list[dict[str, Any]], MemoryRecord | None]]) -> None:
        actions = [action for group, _ in chunk for action in group]
        for _attempt in range(_MAX_RETRIES):
            try:
                self._ops.transact(actions)
                return
            except TransactionCancelledError as cancelled:
                position, cleared = 0, False
                for group, record in chunk:
                    if cancelled.failed(position):
                        raise ConflictError(f"A memory with id {record and record.id} already exists.") from cancelled
                    if record is not None and len(group) > 1 and cancelled.failed(position + 1):
                        self._claim_conflict(record)  # raises DuplicateMemoryError unless the claim was stale
                        cleared = True
                    position += len(group)
                if not cleared:
                    raise
        raise RuntimeError("Dedup claims kept changing while inserting; giving up.")

    def _claim_conflict(self, record: MemoryRecord) -> None:
        """The claim is held: by a live memory (raise), or left by a memory that no longer holds it (clear it)."""
        claim = it.claim_pk(record.scope, record.hash, ns=self._ns)
        held = self._ops.get(it.claim_key(claim))
        if held is None:
            return  # released meanwhile: retry
        owner_id = held["memory_id"]["S"]
        owner = self._ops.get(it.memory_key(owner_id, ns=self._ns), ["guard"])
        if owner is not None and owner.get("guard", {}).get("S") == claim:
            raise DuplicateMemoryError(owner_id, record.scope, record.hash)
        try:
            self._ops.client.delete_item(
                TableName=self._ops.table,
                Key=it.claim_key(claim),
                ConditionExpression="memory_id = :owner",
                ExpressionAttributeValues={":owner": {"S": owner_id}},
            )
        except ClientError as exc:
            if not condition_failed(exc):
                raise
        log.warning("cleared a stale dedup claim of memory %s", owner_id)

    def replace(self, record: MemoryRecord, vector: Vectors | None, history: HistoryEntry) -> None:
        """Overwrite the memory (it must still exist: a concurrent delete wins, NotFoundError) and append history.
        If another active memory already holds the new text's claim, the update goes through without it."""
        claim_new = True
        for _attempt in range(_MAX_RETRIES):
            current = self._ops.get(it.memory_key(record.id, ns=self._ns), STATE_ATTRIBUTES)
            if current is None:
                raise NotFoundError(f"Memory with id {record.id} not found.")
            new_claim = it.claim_of(record, ns=self._ns) if claim_new else None
            actions = self._replace_actions(record, vector, history, current, new_claim)
            try:
                self._ops.transact(actions)
            except TransactionCancelledError as cancelled:
                if cancelled.failed(0):
                    continue  # changed or deleted meanwhile: read it again
                if len(actions) > 2 and cancelled.failed(len(actions) - 1) and new_claim is not None:
                    claim_new = False  # another active memory holds this text's claim
                    continue
                raise
            self._notify(any(self._is_event(a) for a in actions))
            before = it.record_of(current)
            changes = [(before, -1)] if before.state is LifecycleState.ACTIVE else []
            if record.state is LifecycleState.ACTIVE:
                changes.append((record, 1))
            self._entities.apply(changes)
            return
        raise RuntimeError(f"Memory {record.id} kept changing while being replaced; giving up.")

    def _replace_actions(
        self, record: MemoryRecord, vector: Vectors | None, history: HistoryEntry, current: Item, new_claim: str | None
    ) -> list[dict[str, Any]]:
        """The transaction of a replace: the update (conditioned on the memory as read), its history entry, and the
        move of its dedup claim when its text changes (the new claim last)."""
        old_claim = current.get("guard", {}).get("S")
        created_sk = ordered_sk(record.created_at, seq_of(current["created_sk"]["S"]))
        attrs, absent = it.record_attributes(record, created_sk, ns=self._ns)
        if new_claim is None and attrs.pop("guard", None) is not None:
            absent.append("guard")  # active, but another memory holds this text's claim
        if vector is not None:
            attrs["vec"] = {"B": it.vector_bytes(vector)}
        kept_vector = {} if vector is not None else {"vec": {"B": bytes(KEPT_VECTOR_BYTES)}}
        fitting({**it.memory_key(record.id, ns=self._ns), **attrs, **kept_vector})  # 413, not DynamoDB's refusal
        update = self._update_memory(record.id, attrs, absent, old_claim)
        actions = [update, self._ops.put(it.history_item(history, self._seq.next(), ns=self._ns))]
        # its events next (unconditional puts), before the claim moves: the new claim stays the last action
        actions.extend(self._event_puts([record], [history], {record.id: it.record_of(current)}))
        if old_claim != new_claim:
            if old_claim is not None:
                actions.append(self._ops.release(it.claim_key(old_claim), "memory_id", record.id))
            if new_claim is not None:
                actions.append(self._take(new_claim, record.id))
        return actions

    def _update_memory(self, memory_id: str, attrs: Item, absent: list[str], claim: str | None) -> dict[str, Any]:
        names = {f"#a{i}": name for i, name in enumerate(attrs)}
        values = {f":v{i}": value for i, value in enumerate(attrs.values())}
        removed = {f"#r{i}": name for i, name in enumerate(absent)}
        expression = "SET " + ", ".join(f"{n} = {v}" for n, v in zip(names, values, strict=True))
        if removed:
            expression += " REMOVE " + ", ".join(removed)
        condition = "attribute_exists(pk) AND "
        if claim is None:
            condition += "attribute_not_exists(#guard)"
        else:
            condition += "#guard = :guard"
            values[":guard"] = {"S": claim}
        return {
            "Update": {
                "TableName": self._ops.table,
                "Key": it.memory_key(memory_id, ns=self._ns),
                "UpdateExpression": expression,
                "ConditionExpression": condition,
                "ExpressionAttributeNames": {**names, **removed, "#guard": "guard"},
                "ExpressionAttributeValues": values,
            }
        }

    def _take(self, claim: str, memory_id: str) -> dict[str, Any]:
        return {
            "Put": {
                "TableName": self._ops.table,
                "Item": it.claim_item(claim, memory_id),
                "ConditionExpression": "attribute_not_exists(pk) OR memory_id = :me",
                "ExpressionAttributeValues": {":me": {"S": memory_id}},
            }
        }

    def set_vectors(self, memory_ids: Sequence[str], vectors: Vectors) -> None:
        """Each embedding replaced in place; a memory deleted meanwhile stays deleted."""
        pairs = list(zip(memory_ids, vectors, strict=True))

        def update(pair: tuple[str, Vectors]) -> None:
            self._ops.set_if_exists(it.memory_key(pair[0], ns=self._ns), {"vec": {"B": it.vector_bytes(pair[1])}})

        if len(pairs) <= 4:
            for pair in pairs:
                update(pair)
            return
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(update, pairs))

    def remove(self, memory_ids: Sequence[str], history: Sequence[HistoryEntry]) -> list[str]:
        """Delete memories (with their claims) and append their history without texts, in transactions of up to
        100 actions (each memory with its claim and history entries in one of them); the texts of their earlier
        history entries are erased first (so that a failure never leaves the text of a memory already deleted),
        then their siblings' sources are redacted and their unpublished outbox events scrubbed. The texts their
        history held."""
        unique = list(dict.fromkeys(memory_ids))
        said = self._erase_history(unique)
        removed: dict[str, Item] = {}
        entries: dict[str, list[HistoryEntry]] = {}
        for entry in history:
            entries.setdefault(entry.memory_id, []).append(textless(entry))
        chunk: list[str] = []
        size = weight = 0
        for memory_id in unique:
            own = entries.get(memory_id, [])
            cost = 2 + len(own)  # delete, release the claim, its history entries
            heft = sum(_history_bytes(h) for h in own)
            if self._outbox is not None:  # and a delete event per DELETE entry, about as heavy as the entry
                deletes = [h for h in own if h.event is Event.DELETE]
                cost += len(deletes)
                heft += sum(_history_bytes(h) for h in deletes)
            if chunk and (size + cost > MAX_TRANSACTION or weight + heft > TRANSACTION_BYTES):
                removed.update(self._remove_chunk(chunk, {i: entries.pop(i, []) for i in chunk}))
                chunk, size, weight = [], 0, 0
            chunk.append(memory_id)
            size += cost
            weight += heft
        if chunk:
            removed.update(self._remove_chunk(chunk, {i: entries.pop(i, []) for i in chunk}))
        leftovers: list[tuple[list[dict[str, Any]], MemoryRecord | None]] = [
            ([self._ops.put(it.history_item(h, self._seq.next(), ns=self._ns))], None)
            for hs in entries.values()
            for h in hs
        ]
        for part in _chunks(leftovers):
            self._ops.transact([action for group, _ in part for action in group])
        erasure = Erasure.of((it.record_of(item) for item in removed.values()), said)
        linked = {i for item in removed.values() for i in it.links_of(item)} - removed.keys()
        self._redact_siblings(sorted(linked), erasure)
        if self._outbox is not None and erasure:
            self._outbox.scrub(erasure)
        return said

    def purge(self) -> None:
        """Nothing lingers to purge: a deleted item is gone from the table (backups and point-in-time recovery
        keep their copies until they expire: see the README)."""

    def _erase_history(self, memory_ids: Sequence[str]) -> list[str]:
        """Every history entry of the memories rewritten without its texts (a Query of each memory's partition,
        eight at a time; BatchWriteItem puts of the entries that held text). The texts they held."""

        def texts_of(memory_id: str) -> list[Item]:
            return [
                item
                for item in self._ops.partition(it.memory_pk(memory_id, ns=self._ns), it.HISTORY_PREFIX)
                if "old_memory" in item or "new_memory" in item
            ]

        if len(memory_ids) <= 2:
            found = [item for memory_id in memory_ids for item in texts_of(memory_id)]
        else:
            with ThreadPoolExecutor(max_workers=8) as pool:
                found = [item for items in pool.map(texts_of, memory_ids) for item in items]
        said = [item[name]["S"] for item in found for name in ("old_memory", "new_memory") if name in item]
        self._ops.batch_write([{"PutRequest": {"Item": it.without_texts(item)}} for item in found])
        return list(dict.fromkeys(said))

    def _redact_siblings(self, sibling_ids: Sequence[str], erasure: Erasure) -> None:
        """The siblings' source messages that hold an erased text, redacted, and their links to the erased
        memories dropped (each an UpdateItem on condition that the sibling still exists)."""
        if not sibling_ids:
            return
        keys = [it.memory_key(i, ns=self._ns) for i in sibling_ids]
        for item in self._ops.batch_get(keys, (*RECORD_ATTRIBUTES, "links")):
            record = it.record_of(item)
            sources = redacted_sources(record.sources, erasure) or record.sources
            links = [i for i in it.links_of(item) if i not in erasure.ids]
            values = {"sources": it.provenance(replace(record, sources=sources)), **it.links_attribute(links)}
            self._ops.set_if_exists(it.memory_key(record.id, ns=self._ns), values)

    def _remove_chunk(self, memory_ids: list[str], entries: dict[str, list[HistoryEntry]]) -> dict[str, Item]:
        """The memories' deletes, claims, history and (with the outbox) delete events, in one transaction; the
        items removed (as they were)."""
        for _attempt in range(_MAX_RETRIES):
            current = {
                item["id"]["S"]: item
                for item in self._ops.batch_get(
                    [it.memory_key(i, ns=self._ns) for i in memory_ids], (*STATE_ATTRIBUTES, "links")
                )
            }
            actions: list[dict[str, Any]] = []
            for memory_id in memory_ids:
                item = current.get(memory_id)
                if item is not None:
                    claim = item.get("guard", {}).get("S")
                    actions.append(self._delete_memory(memory_id, claim))
                    if claim is not None:
                        actions.append(self._ops.release(it.claim_key(claim), "memory_id", memory_id))
                actions.extend(
                    self._ops.put(it.history_item(h, self._seq.next(), ns=self._ns)) for h in entries[memory_id]
                )
            history = [h for memory_id in memory_ids for h in entries[memory_id]]
            removed = [it.record_of(item) for item in current.values()]
            actions.extend(self._event_puts([], history, {r.id: r for r in removed}))
            if not actions:
                return {}
            try:
                self._ops.transact(actions)
            except TransactionCancelledError:
                continue  # one of them changed meanwhile: read again
            self._notify(any(self._is_event(a) for a in actions))
            self._entities.apply((r, -1) for r in removed if r.state is LifecycleState.ACTIVE)
            return current
        raise RuntimeError("Memories kept changing while being removed; giving up.")

    def _delete_memory(self, memory_id: str, claim: str | None) -> dict[str, Any]:
        request: dict[str, Any] = {
            "TableName": self._ops.table,
            "Key": it.memory_key(memory_id, ns=self._ns),
            "ExpressionAttributeNames": {"#guard": "guard"},
        }
        if claim is None:
            request["ConditionExpression"] = "attribute_exists(pk) AND attribute_not_exists(#guard)"
        else:
            request["ConditionExpression"] = "attribute_exists(pk) AND #guard = :guard"
            request["ExpressionAttributeValues"] = {":guard": {"S": claim}}
        return {"Delete": request}

    # ---- the outbox (outbox.py) ---------------------------------------------------------------------

    def _event_puts(
        self, records: Sequence[MemoryRecord], history: Sequence[HistoryEntry], before: Mapping[str, MemoryRecord]
    ) -> list[dict[str, Any]]:
        """The transaction's puts of these changes' webhook events (none without an outbox)."""
        if self._outbox is None:
            return []
        return [self._outbox.put(event) for event in change_events(records, history, before)]

    def _is_event(self, action: dict[str, Any]) -> bool:
        return self._outbox is not None and self._outbox.holds(action)

    def _notify(self, wrote: bool) -> None:
        if wrote:
            notify(self._on_outbox, log, f"namespace {self.namespace}")

    def pending(self, limit: int) -> list[OutboundEvent]:
        """The oldest unpublished events of this namespace, oldest first (none without an outbox)."""
        return [] if self._outbox is None else self._outbox.pending(limit)

    def published(self, event_ids: Sequence[str]) -> None:
        if self._outbox is not None:
            self._outbox.published(event_ids)

    def clear(self, *, settings: bool = False) -> None:
        """Delete every memory, history entry, claim and entity count; settings too with `settings` (dropping a
        namespace), else they stay. A namespace's items are found through the by_namespace index (its own keys
        only); the plain store's by a table scan. The outbox keeps the events already written."""
        doomed: list[Item] = []
        found = (
            self._namespace_keys()
            if self._ns
            else self._ops.items("scan", ConsistentRead=True, **self._own(projection(["pk", "sk"])))
        )
        for item in found:
            if settings or item["sk"]["S"] != it.SETTING_SK:
                doomed.append(item)
            if len(doomed) >= 500:
                self._ops.delete_many(doomed)
                doomed = []
        self._ops.delete_many(doomed)

    def put_setting(self, key: str, value: Any) -> None:
        self._ops.client.put_item(
            TableName=self._ops.table, Item=fitting(it.setting_item(key, value, now(), ns=self._ns))
        )

    # ---- entity aggregates (entity_counts.py) -------------------------------------------------------

    def count_by_entity(self) -> list[EntityCount]:
        """Read from the entity aggregates (one small item per user, agent, app and run), never from the memories."""
        return self._entities.count_by_entity()

    def rebuild_entity_counts(self) -> int:
        """Recompute every entity aggregate exactly from the memories (a full scan: maintenance, run by
        `mnemo reindex`). Returns the number of entities."""
        return self._entities.rebuild(self._items_of_kind)

    # ---- reads --------------------------------------------------------------------------------------

    def get(self, memory_id: str) -> MemoryRecord | None:
        item = self._ops.get(it.memory_key(memory_id, ns=self._ns), RECORD_ATTRIBUTES)
        return it.record_of(item) if item is not None else None

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        found = self._ops.batch_get([it.memory_key(i, ns=self._ns) for i in memory_ids], RECORD_ATTRIBUTES)
        return {item["id"]["S"]: it.record_of(item) for item in found}

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
            yield from sorted(found, key=lambda item: item["created_sk"]["S"], reverse=True)
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
                ExpressionAttributeValues={":p": {"S": partition}},
                ScanIndexForward=False,
                first_page=wanted,
            )
            for partition in partitions
        ]
        yield from heapq.merge(*streams, key=lambda item: item["created_sk"]["S"], reverse=True)

    def find_by_hash(self, scope: Scope, text_hash: str) -> MemoryRecord | None:
        claim = it.claim_pk(scope, text_hash, ns=self._ns)
        held = self._ops.get(it.claim_key(claim))
        if held is None:
            return None
        item = self._ops.get(it.memory_key(held["memory_id"]["S"], ns=self._ns), STATE_ATTRIBUTES)
        if item is None or item.get("guard", {}).get("S") != claim:
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
            keys = [k for k in self._namespace_keys() if k["sk"]["S"].startswith(it.HISTORY_PREFIX)]
            items: list[Item] = []
            for start in range(0, len(keys), 1000):
                items += self._ops.batch_get(keys[start : start + 1000], None)
        else:
            request: dict[str, Any] = {
                "ExpressionAttributeNames": {"#sk": "sk"},
                "ExpressionAttributeValues": {":hist": {"S": it.HISTORY_PREFIX}},
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

    def _items_of_kind(self, kind: str, names: Sequence[str]) -> Iterator[Item]:
        """Every item whose sort key is `kind` (memories, entity counts), with the attributes `names`: a
        namespace's through its by_namespace keys, the plain store's by a consistent table scan."""
        if self._ns:
            keys = [k for k in self._namespace_keys() if k["sk"]["S"] == kind]
            for start in range(0, len(keys), 1000):
                yield from self._ops.batch_get(keys[start : start + 1000], names)
            return
        request = projection(names)
        request["ExpressionAttributeNames"]["#kind"] = "sk"
        request["ExpressionAttributeValues"] = {":kind": {"S": kind}}
        yield from self._ops.items("scan", ConsistentRead=True, **self._own(request, "#kind = :kind"))

    def _namespace_keys(self) -> Iterator[Item]:
        """The keys of every item of this namespace, from the by_namespace index (eventually consistent: an item
        written in the last moment may be missing; none of another namespace can be there)."""
        for shard in range(NAMESPACE_SHARDS):
            for item in self._ops.items(
                "query",
                IndexName=BY_NAMESPACE,
                KeyConditionExpression="ns_pk = :p",
                ExpressionAttributeValues={":p": {"S": it.namespace_partition(shard, self._ns)}},
            ):
                yield key_of(item)

    def get_setting(self, key: str) -> Any | None:
        item = self._ops.get(it.setting_key(key, ns=self._ns))
        return None if item is None else json_of(item, "value")


def _history_bytes(entry: HistoryEntry) -> int:
    """About what a history entry's item weighs: its texts, and a kilobyte for the rest."""
    return len((entry.old_memory or "").encode("utf-8")) + len((entry.new_memory or "").encode("utf-8")) + 1024


def _chunks(
    groups: list[tuple[list[dict[str, Any]], MemoryRecord | None]],
) -> Iterator[list[tuple[list[dict[str, Any]], MemoryRecord | None]]]:
    """Whole groups (a memory with its claim and history) packed into transactions of at most 100 actions and
    TRANSACTION_BYTES (memories that each keep a long conversation as their sources add up quickly)."""
    chunk: list[tuple[list[dict[str, Any]], MemoryRecord | None]] = []
    actions = size = 0
    for group in groups:
        weight = sum(item_size(a["Put"]["Item"]) for a in group[0] if "Put" in a)
        if chunk and (actions + len(group[0]) > MAX_TRANSACTION or size + weight > TRANSACTION_BYTES):
            yield chunk
            chunk, actions, size = [], 0, 0
        chunk.append(group)
        actions += len(group[0])
        size += weight
    if chunk:
        yield chunk
