"""Dream's past runs as the console shows them: the runs found among the project's events (read in pages, up to a
bound a page of runs, each page saying where the next older one starts), and one run's results per user with each
change and the memories it points to, whatever the results hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.console.dream_runs import (
    MAX_RUNS,
    MAX_START,
    SCAN_EVENTS,
    Change,
    asked_users,
    change_count,
    recent_runs,
    runs_start,
    user_results,
)
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.errors import ValidationError
from mnemo.services.platform.tenancy.events import DREAM, EventService, new_event

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _event(kind: str, minutes: int, **fields: Any) -> PlatformEvent:
    return new_event("p", kind, fields.pop("payload", {}), T0 + timedelta(minutes=minutes)).changed(**fields)


def _events(tmp_path: Path, made: list[PlatformEvent], name: str = "events") -> EventService:
    store = SqliteTenancyStore(Database(tmp_path / f"{name}.sqlite3"))
    for event in made:
        store.save_event(event)
    return EventService(store)


def test_the_runs_among_the_newest_events_are_found_newest_first(tmp_path: Path) -> None:
    made = [_event(DREAM if n % 3 == 0 else "ADD", n) for n in range(30)]
    found = recent_runs(_events(tmp_path, made), "p")
    assert [r.id for r in found.runs] == [e.id for e in reversed(made) if e.event_type == DREAM]
    assert found.older is None  # every event was read


def test_a_page_reads_a_bounded_number_of_events_and_says_where_the_older_runs_are(tmp_path: Path) -> None:
    older_run = _event(DREAM, 0)
    adds = [_event("ADD", n) for n in range(1, SCAN_EVENTS + 1)]
    events = _events(tmp_path, [older_run, *adds])
    first = recent_runs(events, "p")
    assert first.runs == [] and first.older == SCAN_EVENTS
    second = recent_runs(events, "p", first.older)
    assert [r.id for r in second.runs] == [older_run.id] and second.older is None


def test_no_more_than_a_page_of_runs_is_listed_and_the_next_page_goes_on_from_it(tmp_path: Path) -> None:
    many = [_event(DREAM, n) for n in range(MAX_RUNS + 5)]
    events = _events(tmp_path, many, "many")
    first = recent_runs(events, "p")
    newest_first = [e.id for e in reversed(many)]
    assert [r.id for r in first.runs] == newest_first[:MAX_RUNS] and first.older == MAX_RUNS
    rest = recent_runs(events, "p", MAX_RUNS)
    assert [r.id for r in rest.runs] == newest_first[MAX_RUNS:] and rest.older is None


@pytest.mark.parametrize("raw", ["-1", "x", "1.5", "1" * 12, "99999999999"])
def test_a_start_out_of_bounds_is_refused(raw: str) -> None:
    with pytest.raises(ValidationError, match="from is a whole number"):
        runs_start({"from": raw})


def test_a_start_is_read_from_the_query_string() -> None:
    assert (runs_start({}), runs_start({"from": "25"}), runs_start({"from": str(MAX_START)})) == (0, 25, MAX_START)


def test_a_runs_results_give_each_user_and_each_change() -> None:
    run = _event(
        DREAM,
        0,
        payload={"trigger": "request", "user_ids": ["alice"]},
        status=EventStatus.SUCCEEDED,
        results=[
            {
                "user_id": "alice",
                "status": "DONE",
                "memories_read": 20,
                "changes": [
                    {"id": "s1", "event": "ADD", "action": "SYNTHESIZE", "data": {"memory": "Early riser"},
                     "source_memory_ids": ["m1", "m2"]},
                    {"id": "m3", "event": "DELETE", "action": "SUPERSEDE", "data": {"memory": "Lives in Paris"},
                     "replaced_by": "m4"},
                    {"id": "m5", "event": "UPDATE", "action": "MERGE", "data": {"memory": "Vegetarian"},
                     "previous_memory": "Eats no meat"},
                ],
                "ignored": ["one source only"],
            },
            {"user_id": "bob", "status": "SKIPPED", "reason": "3 memories of their own"},
        ],
    )  # fmt: skip
    alice, bob = user_results(run)
    assert (alice.user_id, alice.status, alice.memories_read, alice.ignored) == (
        "alice",
        "DONE",
        20,
        ("one source only",),
    )
    assert alice.changes == (
        Change("s1", "SYNTHESIZE", "ADD", "Early riser", sources=("m1", "m2")),
        Change("m3", "SUPERSEDE", "DELETE", "Lives in Paris", replaced_by="m4"),
        Change("m5", "MERGE", "UPDATE", "Vegetarian", previous="Eats no meat"),
    )
    assert (bob.status, bob.reason, bob.memories_read, bob.changes) == ("SKIPPED", "3 memories of their own", None, ())
    assert change_count(run) == 3
    assert asked_users(run) == ["alice"]


def test_a_run_over_every_user_and_odd_results_still_read() -> None:
    run = _event(DREAM, 0, payload={"trigger": "schedule", "user_ids": None}, results=[{"changes": "nonsense"}])
    (odd,) = user_results(run)
    assert (odd.user_id, odd.status, odd.changes, odd.ignored) == ("", "", (), ())
    assert asked_users(run) is None
    assert change_count(run) == 0
