"""What a Dream run decided about one scope's memories, applied to the memories as they are now: merges (the kept
memory reworded when the run says so; each duplicate kept MERGED into it), supersedes (the outdated memory kept
SUPERSEDED by the current one), then synthesized memories (`synthesized`, `derived_from` their sources), one whose
fact an active memory states already left out (merging.py). A memory no longer active, or of another owner, is
left alone, and so is any change naming it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord
from mnemo.ports.embedder import Vectors
from mnemo.services.commands import Category, ConsolidateCommand, ConsolidationChange, DreamAction, Merge, Supersede
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.scoping import owner_of


class Consolidation:
    def __init__(self, parts: MemoryParts, categorizing: Categorizing, merging: Merging, inserting: Inserting) -> None:
        self._parts = parts
        self._categorizing = categorizing
        self._merging = merging
        self._inserting = inserting

    def consolidate(self, command: ConsolidateCommand) -> list[ConsolidationChange]:
        """Merges first (UPDATE for a reworded kept memory, DELETE for each duplicate), then supersedes (DELETE),
        then the synthesized memories (ADD). Every embedding is computed before the first write, so a provider
        failing leaves nothing half-done."""
        store = self._parts.store
        before = store.get_many(command.referenced())
        retiring = [r.text for r in before.values() if r.state is LifecycleState.ACTIVE]
        new_texts = [s.text for s in command.syntheses] + [m.text for m in command.merges if m.text]
        wanted = list(dict.fromkeys([*new_texts, *retiring]))
        vectors = dict(zip(wanted, self._parts.embed(wanted), strict=True)) if wanted else {}
        category_set = tuple(command.custom_categories) or self._parts.language.default_categories
        with self._parts.write_lock:
            applying = _Consolidating(
                self._parts, self._categorizing, command, store.get_many(command.referenced()), vectors
            )
            for merge in command.merges:
                applying.merge(merge, category_set)
            for supersede in command.supersedes:
                applying.supersede(supersede)
            return [*applying.changes, *self._synthesized(command, applying.current, vectors, category_set)]

    def _synthesized(
        self,
        command: ConsolidateCommand,
        current: dict[str, MemoryRecord],
        vectors: dict[str, Vectors],
        category_set: tuple[Category, ...],
    ) -> list[ConsolidationChange]:
        """The synthesized memories stored (under the write lock): each drawn from two or more memories still
        stored, and saying what no active memory of the scope says yet (by text, or by the merge rule)."""
        records = self._syntheses(command, current)
        if not records:
            return []
        stacked = np.stack([vectors[r.text] for r in records])
        said = self._merging.merged(records, stacked, command.scope)
        kept = [i for i, r in enumerate(said) if r.state is LifecycleState.ACTIVE]
        if not kept:
            return []
        filing = category_set if self._parts.policy.categorize else ()
        filed = self._categorizing.filed([records[i] for i in kept], stacked[kept], filing)
        stored = self._inserting.insert_new(filed, stacked[kept], command.scope)
        return [ConsolidationChange(r.record, r.event, DreamAction.SYNTHESIZE) for r in stored if r.event is Event.ADD]

    def _syntheses(self, command: ConsolidateCommand, current: dict[str, MemoryRecord]) -> list[MemoryRecord]:
        """The new memories of the run's syntheses drawn from two or more memories still stored, each text once and
        none already stored in the scope."""
        records: list[MemoryRecord] = []
        for synthesis in command.syntheses:
            sources = tuple(dict.fromkeys(m for m in synthesis.sources if m in current))
            record = MemoryRecord.create(synthesis.text, command.scope, synthesized=True, derived_from=sources)
            if len(sources) < 2 or any(r.hash == record.hash for r in records):
                continue
            if self._parts.store.find_by_hash(command.scope, record.hash) is not None:
                continue
            records.append(record)
        return records


class _Consolidating:
    """One consolidation being applied (under the write lock): the memories it names as they are now, the
    embeddings computed for it, and the changes made so far."""

    def __init__(
        self,
        parts: MemoryParts,
        categorizing: Categorizing,
        command: ConsolidateCommand,
        current: dict[str, MemoryRecord],
        vectors: dict[str, Vectors],
    ) -> None:
        self._parts = parts
        self._categorizing = categorizing
        self._owner = owner_of(command.scope)
        self.current = current
        self._vectors = vectors
        self.changes: list[ConsolidationChange] = []

    def active(self, memory_id: str) -> MemoryRecord | None:
        """The memory, when it is still active and of the command's owner."""
        record = self.current.get(memory_id)
        if record is None or record.state is not LifecycleState.ACTIVE or owner_of(record.scope) != self._owner:
            return None
        return record

    def merge(self, merge: Merge, category_set: tuple[Category, ...]) -> None:
        keep = self.active(merge.keep)
        duplicates = self._duplicates(merge)
        if keep is None or not duplicates:
            return
        if merge.text and merge.text != keep.text and not keep.immutable:
            reworded = self._reworded(keep, merge.text, self._vectors[merge.text], category_set)
            self.current[keep.id] = reworded
            self.changes.append(ConsolidationChange(reworded, Event.UPDATE, DreamAction.MERGE, keep.text))
        for duplicate in duplicates:
            self._retire(duplicate, LifecycleState.MERGED, keep.id, DreamAction.MERGE)

    def supersede(self, supersede: Supersede) -> None:
        outdated, successor = self.active(supersede.outdated), self.active(supersede.current)
        if outdated is not None and successor is not None and outdated.id != successor.id and not outdated.immutable:
            self._retire(outdated, LifecycleState.SUPERSEDED, successor.id, DreamAction.SUPERSEDE)

    def _duplicates(self, merge: Merge) -> list[MemoryRecord]:
        """The merge's duplicates that are active, other than the kept memory, and not immutable (an immutable
        memory is never merged away)."""
        duplicates = [d for d in map(self.active, dict.fromkeys(merge.duplicates)) if d and d.id != merge.keep]
        return [d for d in duplicates if not d.immutable]

    def _reworded(
        self, record: MemoryRecord, text: str, vector: Vectors, category_set: tuple[Category, ...]
    ) -> MemoryRecord:
        """The memory with a new text (filed anew), stored with its UPDATE history, and indexed."""
        updated = replace(record.with_text(text), categories=())
        if self._parts.policy.categorize:
            (updated,) = self._categorizing.filed([updated], vector[None, :], category_set)
        else:
            updated = replace(updated, categories=record.categories)
        self._parts.store.replace(updated, vector, HistoryEntry.of(Event.UPDATE, updated, record.text, text))
        self._parts.index.upsert([updated], vector[None, :])
        return updated

    def _retire(self, record: MemoryRecord, state: LifecycleState, by: str, action: DreamAction) -> None:
        """The memory kept in `state`, replaced by `by` (a DELETE in its history), and still indexed: a read that
        asks for merged or superseded memories finds it."""
        retired = record.changed(state=state, replaced_by=by)
        self._parts.store.replace(retired, None, HistoryEntry.of(Event.DELETE, retired, record.text, None))
        if record.text not in self._vectors:  # its text changed since the run read it
            self._vectors[record.text] = self._parts.embed([record.text])[0]
        self._parts.index.upsert([retired], self._vectors[record.text][None, :])
        self.current[record.id] = retired
        self.changes.append(ConsolidationChange(retired, Event.DELETE, action))
