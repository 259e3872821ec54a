"""Dream's past runs as the Dream page shows them: the runs among the project's newest events, and one run's
results per user with each change it made (a memory synthesized, merged, superseded or reworded), read from the
run's event (mnemo.services.platform.dream.runs says their shape).

The events are kept newest first without an index by type, so a page of runs reads at most `SCAN_EVENTS` events,
in pages, from where the previous one stopped, and keeps the Dream runs among them; it says where the next (older)
page starts, so every run is reached, page by page, at a bounded cost each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mnemo.domain.tenancy import PlatformEvent
from mnemo.errors import ValidationError
from mnemo.services.platform.tenancy.events import DREAM, EventService

SCAN_EVENTS = 500  # events read for one page of past runs
SCAN_PAGE = 100
MAX_RUNS = 25  # runs listed on a page
MAX_START = 10_000_000  # the furthest event a page of runs may start from


@dataclass(frozen=True, slots=True)
class RunsPage:
    runs: list[PlatformEvent]  # newest first
    older: int | None  # where the next page starts (an offset among the events), or None: no event is older


def recent_runs(events: EventService, project_id: str, start: int = 0) -> RunsPage:
    """The Dream runs among the SCAN_EVENTS events from `start` on (newest first), at most MAX_RUNS of them."""
    runs: list[PlatformEvent] = []
    offset = start
    while offset < start + SCAN_EVENTS:
        page = events.page(project_id, offset, SCAN_PAGE).events
        for n, event in enumerate(page):
            if event.event_type == DREAM:
                runs.append(event)
                if len(runs) == MAX_RUNS:
                    return RunsPage(runs, offset + n + 1)
        offset += len(page)
        if len(page) < SCAN_PAGE:
            return RunsPage(runs, None)
    return RunsPage(runs, offset)


def runs_start(params: Mapping[str, str]) -> int:
    """Where a page of runs starts, from the query string (`from`); ValidationError (400) out of bounds."""
    raw = params.get("from", "0")
    if not raw.isdigit() or int(raw) > MAX_START:
        raise ValidationError(f"from is a whole number from 0 to {MAX_START}.")
    return int(raw)


@dataclass(frozen=True, slots=True)
class Change:
    """One change of a run: the memory it touched, what happened to it, and the memories it points to."""

    memory_id: str
    action: str  # SYNTHESIZE, MERGE, SUPERSEDE, UPDATE…
    event: str  # ADD, UPDATE, DELETE
    text: str
    replaced_by: str | None = None
    previous: str | None = None
    sources: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class UserResult:
    user_id: str
    status: str  # DONE, SKIPPED, FAILED
    reason: str | None
    memories_read: int | None
    changes: tuple[Change, ...]
    ignored: tuple[str, ...]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _change(raw: Mapping[str, Any]) -> Change:
    data = raw.get("data")
    sources = raw.get("source_memory_ids")
    return Change(
        memory_id=str(raw.get("id", "")),
        action=str(raw.get("action", "")),
        event=str(raw.get("event", "")),
        text=str(data.get("memory", "")) if isinstance(data, Mapping) else "",
        replaced_by=_text(raw.get("replaced_by")),
        previous=_text(raw.get("previous_memory")),
        sources=tuple(str(s) for s in sources) if isinstance(sources, list) else (),
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def user_results(run: PlatformEvent) -> list[UserResult]:
    """Each user's result of the run, in the order they were reflected on."""
    out = []
    for raw in run.results:
        read = raw.get("memories_read")
        out.append(
            UserResult(
                user_id=str(raw.get("user_id", "")),
                status=str(raw.get("status", "")),
                reason=_text(raw.get("reason")),
                memories_read=read if isinstance(read, int) else None,
                changes=tuple(_change(c) for c in _list(raw.get("changes")) if isinstance(c, Mapping)),
                ignored=tuple(str(i) for i in _list(raw.get("ignored"))),
            )
        )
    return out


def change_count(run: PlatformEvent) -> int:
    return sum(len(_list(raw.get("changes"))) for raw in run.results)


def asked_users(run: PlatformEvent) -> Sequence[str] | None:
    """The users the run was asked to reflect on (None: every user with enough memories)."""
    asked = run.payload.get("user_ids")
    return [str(u) for u in asked] if isinstance(asked, list) else None
