"""Which memories of one add share a source message: whom to redact when one of them is deleted.

The memories an add stores together may cite the same message (the LLM path cites the whole conversation; a
sentence's memory cites the message the sentence was in). A store records, for each memory of a batch it inserts,
the other memories of the batch that cite one of its messages (its `links`), so that a delete finds the siblings
to redact by their ids, never by a scan of the owner's memories.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.domain.memory import MemoryRecord


def sibling_links(records: Sequence[MemoryRecord]) -> dict[str, list[str]]:
    """For each memory of the batch that shares a source message (same place in the add, same content) with
    others of the batch, their ids, in the batch's order; memories that share none are left out."""
    citing: dict[tuple[int, str, str], list[str]] = {}
    for record in records:
        for source in record.sources:
            if source.content:
                citing.setdefault((source.index, source.role, source.content), []).append(record.id)
    links: dict[str, dict[str, None]] = {}
    for ids in citing.values():
        for memory_id in ids:
            for other in ids:
                if other != memory_id:
                    links.setdefault(memory_id, {})[other] = None
    return {memory_id: list(others) for memory_id, others in links.items()}
