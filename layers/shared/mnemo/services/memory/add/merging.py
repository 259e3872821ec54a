"""Merge on insert (the platform's policy, and Dream's synthesized memories): a new memory that states the same
fact as an active memory of its scope — stored, or earlier in the same batch — is kept MERGED into it. Whether two
texts state one fact is the language pack's paraphrase guards' (`same_fact`); the candidates are the few closest by
meaning."""

from __future__ import annotations

from dataclasses import replace

from mnemo.domain import filters as f
from mnemo.domain.memory import LifecycleState, MemoryRecord, Scope
from mnemo.ports.embedder import Vectors
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.scoping import active_in

MERGE_CANDIDATES = 3  # the closest active memories of the scope a new memory is compared with

Candidate = tuple[float, MemoryRecord]  # a memory a new one may repeat, with their cosine


class Merging:
    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts

    def merged(self, records: list[MemoryRecord], vectors: Vectors, scope: Scope) -> list[MemoryRecord]:
        """The records, each one that states the same fact as an active memory of the scope (stored, or earlier
        in this batch) marked MERGED into it."""
        out: list[MemoryRecord] = []
        scope_filter = active_in(scope)
        for k, (record, vector) in enumerate(zip(records, vectors, strict=True)):
            if record.immutable:  # stays a memory of its own, as it was added
                out.append(record)
                continue
            earlier = [(float(vector @ vectors[j]), out[j]) for j in range(k) if out[j].state is LifecycleState.ACTIVE]
            survivor = self._survivor(record, vector, earlier, scope_filter)
            out.append(replace(record, state=LifecycleState.MERGED, replaced_by=survivor.id) if survivor else record)
        return out

    def _survivor(
        self, record: MemoryRecord, vector: Vectors, earlier: list[Candidate], scope_filter: f.Expr
    ) -> MemoryRecord | None:
        """The closest active memory that states what `record` states: of the batch's earlier ones, then of the
        stored ones the index finds nearest."""
        hits = [
            h
            for h in self._parts.index.search(vector, "", scope_filter, MERGE_CANDIDATES)
            if h.semantic >= self._parts.language.merge_threshold
        ]
        stored = self._parts.store.get_many([h.memory_id for h in hits])
        candidates = [*earlier, *((h.semantic, stored[h.memory_id]) for h in hits if h.memory_id in stored)]
        same = [
            (similarity, other)
            for similarity, other in candidates
            if other.state is LifecycleState.ACTIVE
            and self._parts.language.same_fact(record.text, other.text, similarity)
        ]
        return max(same, key=lambda pair: pair[0])[1] if same else None
