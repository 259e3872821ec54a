"""The record store port for memories, their history and service settings: the source of truth."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from mnemo.domain.filters import Expr
from mnemo.domain.memory import HistoryEntry, MemoryRecord, Scope
from mnemo.ports.embedder import Vectors


class MemoryStore(Protocol):
    def insert(self, records: Sequence[MemoryRecord], vectors: Vectors, history: Sequence[HistoryEntry]) -> None:
        """Store new memories with their embeddings and ADD history, all or nothing."""
        ...

    def replace(self, record: MemoryRecord, vector: Vectors | None, history: HistoryEntry) -> None:
        """Overwrite an existing memory (and its embedding when given) and append its history entry."""
        ...

    def set_vectors(self, memory_ids: Sequence[str], vectors: Vectors) -> None:
        """Replace embeddings (after the embedder changed)."""
        ...

    def remove(self, memory_ids: Sequence[str], history: Sequence[HistoryEntry]) -> None:
        """Delete memories for good, keeping their history."""
        ...

    def get(self, memory_id: str) -> MemoryRecord | None: ...

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]: ...

    def find(self, expr: Expr, limit: int | None = None, offset: int = 0) -> list[MemoryRecord]:
        """Memories matching `expr`, newest first."""
        ...

    def count(self, expr: Expr) -> int: ...

    def find_by_hash(self, scope: Scope, text_hash: str) -> MemoryRecord | None:
        """An active memory with exactly this scope (user, agent, run) and text hash."""
        ...

    def history(self, memory_id: str) -> list[HistoryEntry]:
        """Oldest first."""
        ...

    def scan(self, batch_size: int = 1000) -> Iterator[tuple[list[MemoryRecord], Vectors]]:
        """Every memory with its embedding, in batches (for rebuilding a search index)."""
        ...

    def clear(self) -> None:
        """Delete every memory and all history (reset)."""
        ...

    def get_setting(self, key: str) -> Any | None: ...

    def put_setting(self, key: str, value: Any) -> None: ...
