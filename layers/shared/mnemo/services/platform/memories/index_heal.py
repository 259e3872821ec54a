"""Healing a project's search index from its record store, the source of truth, for the memories a job names.

A memory is written to the record store first, then to the search index (on AWS: DynamoDB, then OpenSearch). Should
the index write fail (throttled, unavailable, timing out), the job is run again later, but the rerun finds the
memory stored already and answers it as NONE: nothing would write its document, and the memory could never be found
by a search. So a job's rerun (a queued add or an import run again after an error, a crash or a redelivered message)
writes again the index documents of the memories it found stored already (its NONE results; the memories it wrote
itself it indexed): each re-embedded from its stored text (the embedder that stored it) and upserted, which is
idempotent, and the documents of memories no longer stored removed. Healing on the rerun, rather than through an
outbox of index writes, needs no new store nor drain: the rerun that "acknowledged ⇒ eventually searchable" needs is
the job's own, which the queue already guarantees, and a whole index that missed more (a job out of attempts) is
rebuilt by `mnemo reindex --project`.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.domain.memory import MemoryRecord
from mnemo.services.memory import MemoryService


def reindex_memories(service: MemoryService, memory_ids: Sequence[str]) -> int:
    """Write again the index documents of the named memories, from the store; remove those of the ones no longer
    stored. A memory that changed while it was embedded is left alone (the change indexed it). How many documents
    were written."""
    ids = list(dict.fromkeys(memory_ids))
    found = service.store.get_many(ids) if ids else {}
    gone = [i for i in ids if i not in found]
    if gone:
        service.index.remove(gone)
    return _upsert_unchanged(service, [found[i] for i in ids if i in found])


def _upsert_unchanged(service: MemoryService, records: list[MemoryRecord]) -> int:
    """The records embedded and upserted, but for those stored otherwise by now; how many were."""
    if not records:
        return 0
    vectors = service.providers.get().embedder.embed([r.text for r in records])
    now_stored = service.store.get_many([r.id for r in records])
    unchanged = [k for k, record in enumerate(records) if now_stored.get(record.id) == record]
    if unchanged:
        service.index.upsert([records[k] for k in unchanged], vectors[unchanged])
    return len(unchanged)
