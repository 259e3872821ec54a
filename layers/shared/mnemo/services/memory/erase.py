"""Where a delete erases (mnemo.domain.erasure): the store removes the memories and their texts from their history,
their siblings' sources and the outbox; the index drops their entries and the access log their retrievals; then,
once per operation, both make what was removed unrecoverable from their files (`purge`), and `on_erased` scrubs the
records kept elsewhere (a platform project's events, exports, deliveries and profiles)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from mnemo.domain import filters as f
from mnemo.domain.erasure import Erasure
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord
from mnemo.errors import ValidationError
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.reads import stored

log = logging.getLogger("mnemo.memories")

ERASE_BATCH = 500  # memories removed per store call of a bulk delete

# Told of every delete once it is done: what was erased and the records as they were (to scrub what quotes them).
ErasureListener = Callable[[Erasure, Sequence[MemoryRecord]], None]


class Erasing:
    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts
        # Told of each delete (a platform project's: its records). The facade's `on_erased`, which the namespace's
        # owner sets once it has built the service.
        self.on_erased: ErasureListener | None = None

    def delete(self, memory_id: str) -> None:
        with self._parts.write_lock:
            self.erase([stored(self._parts.store, memory_id)])

    def delete_all(self, filters: f.Expr) -> int:
        if all(f.pinned_values(filters, name) is None for name in ("user_id", "agent_id", "run_id")):
            raise ValidationError("At least one identifier is required.")
        with self._parts.write_lock:
            records = self._parts.store.find(filters)
            self.erase(records)
        return len(records)

    def delete_many(self, memory_ids: Sequence[str]) -> list[str]:
        """Delete the memories of these ids that are stored (any lifecycle state), as one operation: one purge,
        one erasure elsewhere. Their ids, in the order asked."""
        wanted = list(dict.fromkeys(memory_ids))
        with self._parts.write_lock:
            found = self._parts.store.get_many(wanted)
            records = [found[i] for i in wanted if i in found]
            self.erase(records)
        return [r.id for r in records]

    def reset(self) -> None:
        """Every memory of the namespace, its history, index entries and recorded retrievals."""
        with self._parts.write_lock:
            self._parts.store.clear()
            self._parts.index.clear()
            if self._parts.accesses is not None:
                self._parts.accesses.clear()
            self._purge()

    def erase(self, records: Sequence[MemoryRecord]) -> None:
        """Remove the memories (the caller holds the write lock), in chunks of ERASE_BATCH, each DELETE in their
        history without text; then purge once, and tell `on_erased` what was erased."""
        said: list[str] = []
        for start in range(0, len(records), ERASE_BATCH):
            chunk = records[start : start + ERASE_BATCH]
            ids = [r.id for r in chunk]
            said += self._parts.store.remove(ids, [HistoryEntry.of(Event.DELETE, r, None, None) for r in chunk])
            self._parts.index.remove(ids)
            self._forget(ids)
        if not records:
            return
        self._purge()
        if self.on_erased is not None:
            try:
                self.on_erased(Erasure.of(records, said), records)
            except Exception:
                log.exception("could not erase %d deleted memories from the records beside them", len(records))

    def _purge(self) -> None:
        """What was removed made unrecoverable from the index's and the store's files (a failure is logged: the
        delete stands, and the next purge takes it along)."""
        try:
            self._parts.index.purge()
            self._parts.store.purge()
        except Exception:
            log.exception("could not purge what a delete removed")

    def _forget(self, memory_ids: list[str]) -> None:
        """Drop the accesses of deleted memories (a failure leaves rows of memories that are gone: never read, as
        ids are never reused; logged, and the delete stands)."""
        if self._parts.accesses is None:
            return
        try:
            self._parts.accesses.forget(memory_ids)
        except Exception:
            log.exception("could not forget the accesses of %d deleted memories", len(memory_ids))
