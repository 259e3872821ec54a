"""What an import's event stores: its payload (the adds of its items, compacted), a result per item (ADDED,
REFUSED, FAILED), its progress, and how it ended."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mnemo.domain.memory import Event
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.services.commands import AddResult
from mnemo.services.platform.tenancy.events import IMPORT

ADDED, REFUSED, FAILED = "ADDED", "REFUSED", "FAILED"


def result(
    index: int, status: str, *, reason: str | None = None, memory_ids: list[str] | None = None
) -> dict[str, Any]:
    """One item's result: its index, its status (ADDED, REFUSED, FAILED), why (not ADDED), its memories (ADDED)."""
    out: dict[str, Any] = {"index": index, "status": status}
    if reason is not None:
        out["reason"] = reason
    if memory_ids is not None:
        out["memory_ids"] = memory_ids
    return out


def added(index: int, results: Iterable[AddResult]) -> dict[str, Any]:
    """An item added: the ids of the memories it stored, changed or found already stored (not those it deleted)."""
    ids = list(dict.fromkeys(r.record.id for r in results if r.event is not Event.DELETE))
    return result(index, ADDED, memory_ids=ids)


def progress(event: PlatformEvent) -> tuple[int, int] | None:
    """An import's items done (added, refused or failed) and its items in all; None for another event."""
    total = event.payload.get("total")
    if event.event_type != IMPORT or not isinstance(total, int):
        return None
    return len(event.results), total


def outcome(results: Sequence[Mapping[str, Any]], total: int) -> tuple[EventStatus, str | None]:
    """How an import that ran to its end ended: SUCCEEDED (every item added), PARTIALLY_COMPLETED (some were
    not), FAILED (none was)."""
    done = sum(1 for r in results if r.get("status") == ADDED)
    if done == total:
        return EventStatus.SUCCEEDED, None
    refused = sum(1 for r in results if r.get("status") == REFUSED)
    missed = f"{refused:,} refused, {total - done - refused:,} failed; the results say why"
    if done == 0:
        return EventStatus.FAILED, f"No item was imported ({missed})."
    return EventStatus.PARTIALLY_COMPLETED, f"{total - done:,} of {total:,} items were not imported ({missed})."


def merged(stored: Iterable[Mapping[str, Any]], ours: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The results stored and this run's, one per item (this run's win), in the items' order."""
    by_index = {r.get("index"): dict(r) for r in stored}
    by_index.update({r.get("index"): dict(r) for r in ours})
    return sorted(by_index.values(), key=_index)


def _index(result: Mapping[str, Any]) -> int:
    index = result.get("index")
    return index if isinstance(index, int) else -1


def owner_of(event_id: str) -> str:
    """The queue's owner of an import (its message group on AWS): the import itself, beside other jobs."""
    return f"import:{event_id}"
