"""Filing an add's new memories: each filed under its categories (categorizing.py), an exact repeat of a memory of
its scope (same text: stored already, or earlier in the add) answered as that memory with NONE, under the
platform's policy one that states a stored fact kept merged into it (merging.py), then the rest written
(inserting.py). Every embedding is computed before the write lock is taken."""

from __future__ import annotations

from mnemo.domain.memory import Event, MemoryRecord, Scope
from mnemo.ports.embedder import Vectors
from mnemo.services.commands import AddResult
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.add.pending import PendingAdd
from mnemo.services.memory.parts import MemoryParts


class Filing:
    def __init__(self, parts: MemoryParts, categorizing: Categorizing, merging: Merging, inserting: Inserting) -> None:
        self._parts = parts
        self._categorizing = categorizing
        self._merging = merging
        self._inserting = inserting

    def store_new(
        self, records: list[MemoryRecord], add: PendingAdd, vectors: Vectors | None = None
    ) -> list[AddResult]:
        """Store new records, skipping exact duplicates (same scope and text) already stored or in the batch."""
        if not records:
            return []
        if vectors is None:
            vectors = self._parts.embed([r.text for r in records])
        records = self._categorizing.filed(records, vectors, add.category_set)
        with self._parts.write_lock:
            results, fresh = self._new_ones(records, add.scope)
            if not fresh:
                return results
            kept = [records[i] for i in fresh]
            if self._parts.policy.merge:
                kept = self._merging.merged(kept, vectors[fresh], add.scope)
            outcomes = self._inserting.insert_new(kept, vectors[fresh], add.scope)
            for i, outcome in zip(fresh, outcomes, strict=True):
                results[i] = outcome
        return results

    def _new_ones(self, records: list[MemoryRecord], scope: Scope) -> tuple[list[AddResult], list[int]]:
        """Each record's result so far (NONE with the memory it repeats, else ADD), and the places of the new ones."""
        results: list[AddResult] = []
        fresh: list[int] = []
        seen: dict[str, MemoryRecord] = {}
        for i, record in enumerate(records):
            existing = seen.get(record.hash) or self._parts.store.find_by_hash(scope, record.hash)
            if existing is not None:
                results.append(AddResult(existing, Event.NONE))
                continue
            seen[record.hash] = record
            fresh.append(i)
            results.append(AddResult(record, Event.ADD))
        return results, fresh
