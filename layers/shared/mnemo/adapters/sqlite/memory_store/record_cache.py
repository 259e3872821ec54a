"""The store's cache of recently read records, which never holds a stale one."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from mnemo.domain.memory import MemoryRecord


class RecordCache:
    """Recently read records by id. Records are immutable; every write bumps a generation, and a read only
    fills the cache if no write happened while it ran, so the cache never holds a stale record."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._items: OrderedDict[str, MemoryRecord] = OrderedDict()
        self._lock = threading.Lock()
        self.generation = 0

    def lookup(self, memory_ids: Sequence[str]) -> tuple[dict[str, MemoryRecord], list[str]]:
        found: dict[str, MemoryRecord] = {}
        missing: list[str] = []
        with self._lock:
            for memory_id in memory_ids:
                record = self._items.get(memory_id)
                if record is None:
                    missing.append(memory_id)
                else:
                    found[memory_id] = record
        return found, missing

    def remember(self, records: Sequence[MemoryRecord], generation: int) -> None:
        if self._capacity <= 0:
            return
        with self._lock:
            if generation != self.generation:
                return
            for record in records:
                self._items[record.id] = record
                self._items.move_to_end(record.id)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def forget(self, memory_ids: Sequence[str]) -> None:
        with self._lock:
            self.generation += 1
            for memory_id in memory_ids:
                self._items.pop(memory_id, None)

    def forget_all(self) -> None:
        with self._lock:
            self.generation += 1
            self._items.clear()
