"""The namespace's memories embedded again after the embedder changed: everything is embedded before anything
changes, so a provider failing leaves the store and the index as they were."""

from __future__ import annotations

from mnemo.ports.memory_store import indexed_batches
from mnemo.services.memory.parts import MemoryParts

REEMBED_BATCH = 500  # memories read and embedded at a time


def reembed_all(parts: MemoryParts) -> int:
    """Embed every stored memory again with the current embedder; how many there are."""
    count = 0
    with parts.write_lock:
        batches = [records for records, _old in parts.store.scan(REEMBED_BATCH)]
        fresh = [(records, parts.embed([r.text for r in records])) for records in batches]
        parts.index.clear()
        for records, vectors in fresh:
            parts.store.set_vectors([r.id for r in records], vectors)
            count += len(records)
        for records, vectors in indexed_batches(fresh):
            parts.index.upsert(records, vectors)
    return count
