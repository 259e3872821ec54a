"""The access log of a memory namespace: when its memories were retrieved by a decayed search (memory decay,
mnemo.services.decay), kept per memory — its newest KEPT_ACCESSES access times and how many it had in all.

A search reads the accesses of its candidates in one batched call (`recent`) and records those of what it returned
(`record`) off its request path (mnemo.services.access_buffer writes them in batches). The log lives beside the
namespace's memories (the project's SQLite file; items in the memories table under the namespace's key prefix) and
follows them: a deleted memory's accesses are forgotten, and none is recorded for a memory that is gone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

KEPT_ACCESSES = 20  # the access times kept per memory (the newest)


class AccessLog(Protocol):
    def record(self, accesses: Mapping[str, Sequence[datetime]]) -> None:
        """Add these access times (by memory id) to each memory's log, keeping its newest KEPT_ACCESSES. A memory
        that does not exist (any more) gets none. Adding a time already kept adds it again (two accesses)."""
        ...

    def recent(self, memory_ids: Sequence[str]) -> dict[str, list[datetime]]:
        """The kept access times of each memory that has any, newest first: one batched read however many ids."""
        ...

    def forget(self, memory_ids: Sequence[str]) -> None:
        """Drop the accesses of these memories (they were deleted)."""
        ...

    def clear(self) -> None:
        """Drop every access of the namespace (a reset)."""
        ...


def merged(kept: Sequence[datetime], added: Sequence[datetime]) -> list[datetime]:
    """Access times kept and added, newest first, the newest KEPT_ACCESSES of them (what every adapter stores)."""
    return sorted([*kept, *added], reverse=True)[:KEPT_ACCESSES]
