"""The reads of one namespace's memories: one by id, those a filter matches (in the lifecycle states asked for, not
expired unless asked), how many, per entity, and a memory's history."""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.domain import filters as f
from mnemo.domain.entities import EntityCount
from mnemo.domain.memory import ACTIVE_ONLY, HistoryEntry, LifecycleState, MemoryRecord
from mnemo.errors import NotFoundError
from mnemo.ports.memory_store import MemoryStore
from mnemo.services.memory.scoping import visible


def stored(store: MemoryStore, memory_id: str) -> MemoryRecord:
    """The memory of this id, or a NotFoundError."""
    record = store.get(memory_id)
    if record is None:
        raise NotFoundError(f"Memory with id {memory_id} not found.")
    return record


class Reads:
    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    def get(self, memory_id: str) -> MemoryRecord:
        return stored(self._store, memory_id)

    def get_all(
        self, filters: f.Expr, *, top_k: int | None, show_expired: bool, offset: int, states: Sequence[LifecycleState]
    ) -> list[MemoryRecord]:
        return self._store.find(visible(filters, show_expired, states), limit=top_k, offset=offset)

    def count(
        self, filters: f.Expr, *, show_expired: bool = False, states: Sequence[LifecycleState] = ACTIVE_ONLY
    ) -> int:
        return self._store.count(visible(filters, show_expired, states))

    def entity_counts(self) -> list[EntityCount]:
        return self._store.count_by_entity()

    def history(self, memory_id: str) -> list[HistoryEntry]:
        entries = self._store.history(memory_id)
        if not entries and self._store.get(memory_id) is None:
            raise NotFoundError(f"Memory with id {memory_id} not found.")
        return entries
