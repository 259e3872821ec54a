"""The search index port: vector and keyword search over memories, with filters.

The index is derived data: it can always be rebuilt from the record store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from mnemo.domain.filters import Expr
from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors


@dataclass(frozen=True, slots=True)
class IndexHit:
    memory_id: str
    semantic: float  # cosine similarity of the embeddings, in [-1, 1]
    keyword: float  # raw BM25 score, 0 when the memory did not match the keywords


class MemoryIndex(Protocol):
    def upsert(self, records: Sequence[MemoryRecord], vectors: Vectors) -> None: ...

    def remove(self, memory_ids: Sequence[str]) -> None: ...

    def search(self, vector: Vectors, query_text: str, expr: Expr, limit: int) -> list[IndexHit]:
        """Union of the best `limit` semantic and best `limit` keyword matches of `expr`, best first."""
        ...

    def count(self) -> int: ...

    def clear(self) -> None: ...

    def purge(self) -> None:
        """Make the entries removed (or cleared) so far unrecoverable from the index's storage, after a delete
        (batched: once per operation): the SQLite keyword table merges away the segments that still hold their
        tokens; OpenSearch has nothing that can be forced here (a deleted document leaves its segment at the
        next merge, which Serverless schedules itself)."""
        ...
