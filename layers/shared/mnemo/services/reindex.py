"""Rebuilding the search index from the record store, the source of truth."""

from __future__ import annotations

from collections.abc import Callable

from mnemo.domain import filters as f
from mnemo.ports.memory_index import MemoryIndex
from mnemo.ports.memory_store import MemoryStore, indexed_batches

Progress = Callable[[int, int], None]  # (memories indexed so far, memories to index)


def rebuild_index(
    store: MemoryStore, index: MemoryIndex, *, batch_size: int = 500, progress: Progress | None = None
) -> int:
    """Empty the index, then index every memory of the store (any lifecycle state) with its stored embedding, batch
    by batch.
    Searches made meanwhile see a partial index. Returns the number of memories indexed."""
    if batch_size <= 0:
        raise ValueError("batch_size must be positive.")
    total = store.count(f.And(()))
    index.clear()
    done = 0
    if progress is not None:
        progress(done, total)
    for records, vectors in indexed_batches(store.scan(batch_size)):
        index.upsert(records, vectors)
        done += len(records)
        if progress is not None:
            progress(done, max(total, done))
    return done
