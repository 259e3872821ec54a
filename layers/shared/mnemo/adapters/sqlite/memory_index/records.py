"""What the index is derived from: the records of its file, read to apply another process's change and to rebuild."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors


class IndexedRecords(Protocol):
    """The records an index is derived from (the file's record store): what it reads to apply another process's
    change (mnemo.adapters.sqlite.change_log) and to rebuild itself after falling too far behind."""

    def present(self, memory_ids: Sequence[str]) -> set[str]:
        """Those of these memories whose record exists."""
        ...

    def records(self, memory_ids: Sequence[str]) -> tuple[list[MemoryRecord], Vectors]:
        """The records (those that exist) and their stored embeddings, row for row."""
        ...

    def scan(self) -> Iterable[tuple[list[MemoryRecord], Vectors]]:
        """Every record and its embedding, a batch at a time."""
        ...
