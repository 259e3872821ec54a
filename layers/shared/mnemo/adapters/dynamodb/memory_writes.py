"""The writes of the DynamoDB memory store but a delete (memory_removal.py): insert, replace, new embeddings,
settings, clear, and the rebuild of the entity counts. See "Writes and races" in README.md beside this file: a
memory, its dedup claim, its history and its webhook events are one transaction, conditioned on what was read.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.attributes import Item, attributes, placeholders, text, text_or_none
from mnemo.adapters.dynamodb.codec import ordered_sk, seq_of
from mnemo.adapters.dynamodb.memory_actions import (
    KEPT_VECTOR_BYTES,
    MAX_RETRIES,
    Action,
    Group,
    by_memory,
    chunks,
    take_claim,
    update_memory,
)
from mnemo.adapters.dynamodb.memory_table import MemoryTable, log
from mnemo.adapters.dynamodb.operations import TransactionCancelledError, fitting, projection
from mnemo.adapters.dynamodb.schema import STATE_ATTRIBUTES
from mnemo.domain.memory import HistoryEntry, LifecycleState, MemoryRecord, now
from mnemo.domain.provenance import sibling_links
from mnemo.errors import ConflictError, NotFoundError
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_store import DuplicateMemoryError


class MemoryWrites(MemoryTable):
    # ---- insert -------------------------------------------------------------------------------------

    def insert(self, records: Sequence[MemoryRecord], vectors: Vectors, history: Sequence[HistoryEntry]) -> None:
        """All or nothing per transaction of up to 100 items (about 30 memories with their claims and history);
        a larger batch is split, each part atomic. An active memory whose scope and text hash another active
        memory already holds raises DuplicateMemoryError (a concurrent add won the race)."""
        if len(records) != len(vectors):
            raise ValueError(f"{len(records)} records but {len(vectors)} vectors.")
        claims = [it.claim_of(r, ns=self._ns) for r in records]
        _refuse_doubles(records, claims)
        groups = self._insert_groups(records, vectors, claims, history)
        wrote = False
        try:
            for chunk in chunks(groups):
                self._insert_chunk(chunk)
                wrote = wrote or any(self._is_event(a) for group, _ in chunk for a in group)
                self._entities.apply((r, 1) for _, r in chunk if r is not None and r.state is LifecycleState.ACTIVE)
        finally:
            self._notify(wrote)  # the parts already committed put their events: they are to be published

    def _insert_groups(
        self,
        records: Sequence[MemoryRecord],
        vectors: Vectors,
        claims: list[str | None],
        history: Sequence[HistoryEntry],
    ) -> list[Group]:
        """Each memory's actions (its put, claim, history and events), then those of history entries of no memory
        of the batch."""
        entries = by_memory(history)
        links = sibling_links(records)
        groups: list[Group] = []
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
        return groups + [([action], None) for action in orphans]

    def _insert_chunk(self, chunk: list[Group]) -> None:
        actions = [action for group, _ in chunk for action in group]
        for _attempt in range(MAX_RETRIES):
            try:
                self._ops.transact(actions)
                return
            except TransactionCancelledError as cancelled:
                if not self._cleared_stale_claims(chunk, cancelled):
                    raise
        raise RuntimeError("Dedup claims kept changing while inserting; giving up.")

    def _cleared_stale_claims(self, chunk: list[Group], cancelled: TransactionCancelledError) -> bool:
        """Why an insert's transaction was cancelled: a memory id taken (ConflictError), a claim a live memory holds
        (DuplicateMemoryError), else claims left by memories that no longer hold them, now cleared (True: again)."""
        position, cleared = 0, False
        for group, record in chunk:
            if cancelled.failed(position):
                raise ConflictError(f"A memory with id {record and record.id} already exists.") from cancelled
            if record is not None and len(group) > 1 and cancelled.failed(position + 1):
                self._claim_conflict(record)  # raises DuplicateMemoryError unless the claim was stale
                cleared = True
            position += len(group)
        return cleared

    def _claim_conflict(self, record: MemoryRecord) -> None:
        """The claim is held: by a live memory (raise), or left by a memory that no longer holds it (clear it)."""
        claim = it.claim_pk(record.scope, record.hash, ns=self._ns)
        held = self._ops.get(it.claim_key(claim))
        if held is None:
            return  # released meanwhile: retry
        owner_id = text(held, "memory_id")
        owner = self._ops.get(it.memory_key(owner_id, ns=self._ns), ["guard"])
        if owner is not None and text_or_none(owner, "guard") == claim:
            raise DuplicateMemoryError(owner_id, record.scope, record.hash)
        self._ops.conditionally(
            "delete_item",
            Key=it.claim_key(claim),
            ConditionExpression="memory_id = :owner",
            ExpressionAttributeValues=placeholders(owner=owner_id),
        )
        log.warning("cleared a stale dedup claim of memory %s", owner_id)

    # ---- replace ------------------------------------------------------------------------------------

    def replace(self, record: MemoryRecord, vector: Vectors | None, history: HistoryEntry) -> None:
        """Overwrite the memory (it must still exist: a concurrent delete wins, NotFoundError) and append history.
        If another active memory already holds the new text's claim, the update goes through without it."""
        claim_new = True
        for _attempt in range(MAX_RETRIES):
            current = self._ops.get(it.memory_key(record.id, ns=self._ns), STATE_ATTRIBUTES)
            if current is None:
                raise NotFoundError(f"Memory with id {record.id} not found.")
            new_claim = it.claim_of(record, ns=self._ns) if claim_new else None
            actions = self._replace_actions(record, vector, history, current, new_claim)
            try:
                self._ops.transact(actions)
            except TransactionCancelledError as cancelled:
                if not cancelled.failed(0):  # else changed or deleted meanwhile: read it again
                    claim_new = _claim_taken(cancelled, actions, new_claim)
                continue
            self._notify(any(self._is_event(a) for a in actions))
            self._entities.apply(_moved_counts(it.record_of(current), record))
            return
        raise RuntimeError(f"Memory {record.id} kept changing while being replaced; giving up.")

    def _replace_actions(
        self, record: MemoryRecord, vector: Vectors | None, history: HistoryEntry, current: Item, new_claim: str | None
    ) -> list[Action]:
        """The transaction of a replace: the update (conditioned on the memory as read), its history entry, and the
        move of its dedup claim when its text changes (the new claim last)."""
        old_claim = text_or_none(current, "guard")
        created_sk = ordered_sk(record.created_at, seq_of(text(current, "created_sk")))
        attrs, absent = it.record_attributes(record, created_sk, ns=self._ns)
        if new_claim is None and attrs.pop("guard", None) is not None:
            absent.append("guard")  # active, but another memory holds this text's claim
        if vector is not None:
            attrs |= attributes(vec=it.vector_bytes(vector))
        kept_vector = {} if vector is not None else attributes(vec=bytes(KEPT_VECTOR_BYTES))
        item_key = it.memory_key(record.id, ns=self._ns)
        fitting({**item_key, **attrs, **kept_vector})  # 413, not DynamoDB's refusal
        update = update_memory(self._ops.table, item_key, attrs, absent, old_claim)
        actions = [update, self._ops.put(it.history_item(history, self._seq.next(), ns=self._ns))]
        # its events next (unconditional puts), before the claim moves: the new claim stays the last action
        actions.extend(self._event_puts([record], [history], {record.id: it.record_of(current)}))
        if old_claim != new_claim:
            if old_claim is not None:
                actions.append(self._ops.release(it.claim_key(old_claim), "memory_id", record.id))
            if new_claim is not None:
                actions.append(take_claim(self._ops.table, new_claim, record.id))
        return actions

    # ---- embeddings, settings, maintenance ----------------------------------------------------------

    def set_vectors(self, memory_ids: Sequence[str], vectors: Vectors) -> None:
        """Each embedding replaced in place; a memory deleted meanwhile stays deleted."""
        pairs = list(zip(memory_ids, vectors, strict=True))

        def update(pair: tuple[str, Vectors]) -> None:
            self._ops.set_if_exists(it.memory_key(pair[0], ns=self._ns), attributes(vec=it.vector_bytes(pair[1])))

        if len(pairs) <= 4:
            for pair in pairs:
                update(pair)
            return
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(update, pairs))

    def put_setting(self, key: str, value: Any) -> None:
        self._ops.client.put_item(
            TableName=self._ops.table, Item=fitting(it.setting_item(key, value, now(), ns=self._ns))
        )

    def clear(self, *, settings: bool = False) -> None:
        """Delete every memory, history entry, claim and entity count; settings too with `settings` (dropping a
        namespace), else they stay. A namespace's items are found through the by_namespace index (its own keys
        only); the plain store's by a table scan. The outbox keeps the events already written."""
        found = (
            self._namespace_keys()
            if self._ns
            else self._ops.items("scan", ConsistentRead=True, **self._own(projection(["pk", "sk"])))
        )
        self._ops.delete_as_found(item for item in found if settings or text(item, "sk") != it.SETTING_SK)

    def rebuild_entity_counts(self) -> int:
        """Recompute every entity aggregate exactly from the memories (a full scan: maintenance, run by
        `mnemo reindex`). Returns the number of entities."""
        return self._entities.rebuild(self._items_of_kind)


def _moved_counts(before: MemoryRecord, after: MemoryRecord) -> list[tuple[MemoryRecord, int]]:
    """What a replace changes in the entity counts: the memory as it was leaves them, as it is joins them, while
    active."""
    changes = [(before, -1)] if before.state is LifecycleState.ACTIVE else []
    if after.state is LifecycleState.ACTIVE:
        changes.append((after, 1))
    return changes


def _claim_taken(cancelled: TransactionCancelledError, actions: list[Action], new_claim: str | None) -> bool:
    """A replace whose new claim (its last action) another active memory holds goes again without it (False);
    any other refusal is raised."""
    if len(actions) > 2 and cancelled.failed(len(actions) - 1) and new_claim is not None:
        return False
    raise cancelled


def _refuse_doubles(records: Sequence[MemoryRecord], claims: list[str | None]) -> None:
    """Two active memories of one batch with the same text in the same scope: DuplicateMemoryError."""
    seen: dict[str, str] = {}
    for record, claim in zip(records, claims, strict=True):
        if claim is not None and seen.setdefault(claim, record.id) != record.id:
            raise DuplicateMemoryError(seen[claim], record.scope, record.hash)
