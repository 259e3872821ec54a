"""The record store port for memories, their history and service settings: the source of truth."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

from mnemo.domain.entities import EntityCount
from mnemo.domain.filters import Expr
from mnemo.domain.memory import HistoryEntry, MemoryRecord, Scope
from mnemo.errors import ConflictError
from mnemo.ports.embedder import Vectors


class DuplicateMemoryError(ConflictError):
    """insert() met an active memory with the same scope and text hash, stored after the caller's find_by_hash
    (a concurrent add won). Stores shared by many processes raise it; the caller treats the memory as known."""

    def __init__(self, memory_id: str, scope: Scope, text_hash: str) -> None:
        super().__init__(f"An active memory with this text already exists in this scope: {memory_id}.")
        self.memory_id = memory_id
        self.scope = scope
        self.text_hash = text_hash


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

    def remove(self, memory_ids: Sequence[str], history: Sequence[HistoryEntry]) -> list[str]:
        """Delete memories for good, and erase their texts from what the store keeps beside them: their history
        keeps each entry's event, times, actor and role but no text (the entries given, and every earlier one);
        another memory whose sources hold one of their messages (a sibling of the same add) keeps its place but not
        its content (`SourceMessage.redacted`); an unpublished outbox event of theirs loses their texts, and their
        delete events carry none. Returns the texts their history held (to erase them elsewhere too)."""
        ...

    def purge(self) -> None:
        """Make what was removed unrecoverable from the store's files, after a delete (batched: once per
        operation, not per memory): SQLite checkpoints its WAL and truncates it (freed pages are zeroed as they
        are freed: `secure_delete`); nothing to do where no file keeps old pages (DynamoDB)."""
        ...

    def get(self, memory_id: str) -> MemoryRecord | None: ...

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]: ...

    def find(self, expr: Expr, limit: int | None = None, offset: int = 0) -> list[MemoryRecord]:
        """Memories matching `expr`, newest first."""
        ...

    def count(self, expr: Expr) -> int: ...

    def count_by_entity(self) -> list[EntityCount]:
        """Every distinct user_id, agent_id, app_id and run_id of the active memories, with their count and the
        oldest creation and latest update among them, sorted by (type, id). A memory counts once for each id it
        has. Computed by the backend (an aggregate), never by scanning records into the process."""
        ...

    def find_by_hash(self, scope: Scope, text_hash: str) -> MemoryRecord | None:
        """An active memory with exactly this scope (user, agent, run) and text hash."""
        ...

    def history(self, memory_id: str) -> list[HistoryEntry]:
        """Oldest first."""
        ...

    def recent_history(self, limit: int) -> list[HistoryEntry]:
        """The store's newest `limit` history entries, of every memory (deleted ones included), newest first."""
        ...

    def scan(self, batch_size: int = 1000) -> Iterator[tuple[list[MemoryRecord], Vectors]]:
        """Every memory with its embedding, in batches (for rebuilding a search index)."""
        ...

    def clear(self) -> None:
        """Delete every memory and all history (reset); `purge` then makes them unrecoverable."""
        ...

    def get_setting(self, key: str) -> Any | None: ...

    def put_setting(self, key: str, value: Any) -> None: ...


def indexed_batches(
    batches: Iterable[tuple[list[MemoryRecord], Vectors]],
) -> Iterator[tuple[list[MemoryRecord], Vectors]]:
    """The memories of a store scan, with their embeddings: what a search index holds — every memory, in any
    lifecycle state (a read filters by state: active only, unless it asks for superseded or merged ones too)."""
    for records, vectors in batches:
        if records:
            yield records, vectors


def stored_dimension(store: MemoryStore) -> int | None:
    """The width of the embeddings the store holds (None when it holds none)."""
    for _records, vectors in store.scan(1):
        return int(vectors.shape[1])
    return None
