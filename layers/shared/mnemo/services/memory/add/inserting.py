"""New memories written: the records and their history to the store, then the index. A store shared by several
processes (DynamoDB) may refuse a batch because another process stored one of its texts in the same scope since it
was looked for: the batch is then settled one memory at a time, and the one that lost answers the memory already
there."""

from __future__ import annotations

from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope
from mnemo.ports.embedder import Vectors
from mnemo.ports.memory_store import DuplicateMemoryError
from mnemo.services.commands import AddResult
from mnemo.services.memory.parts import MemoryParts


class Inserting:
    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts

    def insert_new(self, records: list[MemoryRecord], vectors: Vectors, scope: Scope) -> list[AddResult]:
        """Store and index new records (the caller holds the write lock)."""
        store = self._parts.store
        history = [HistoryEntry.of(stored_as(r), r, None, r.text) for r in records]
        try:
            store.insert(records, vectors, history)
        except DuplicateMemoryError:
            # Another process stored one of these texts in this scope since find_by_hash looked (a store shared
            # by many processes, such as DynamoDB): settle them one by one; the one that lost is already known.
            return [self._insert_one(record, vectors[k : k + 1], scope) for k, record in enumerate(records)]
        self._parts.index.upsert(records, vectors)
        return [AddResult(r, stored_as(r)) for r in records]

    def _insert_one(self, record: MemoryRecord, vector: Vectors, scope: Scope) -> AddResult:
        store = self._parts.store
        if store.get(record.id) is None:  # not stored by a part of the batch that went through
            known = store.find_by_hash(scope, record.hash)
            if known is not None:
                return AddResult(known, Event.NONE)
            try:
                store.insert([record], vector, [HistoryEntry.of(stored_as(record), record, None, record.text)])
            except DuplicateMemoryError as lost:
                winner = store.get(lost.memory_id) or store.find_by_hash(scope, record.hash)
                if winner is None:
                    raise
                return AddResult(winner, Event.NONE)
        self._parts.index.upsert([record], vector)
        return AddResult(record, stored_as(record))


def stored_as(record: MemoryRecord) -> Event:
    """A new memory's event: ADD, or NONE for one merged into a memory already there (no webhook event)."""
    return Event.NONE if record.state is LifecycleState.MERGED else Event.ADD
