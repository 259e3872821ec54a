"""Dream's past runs as the console shows them: the runs found among the project's newest events (read in pages, up
to a bound), and one run's results per user with each change and the memories it points to, whatever the results
hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.console.dream_runs import (
    MAX_RUNS,
    SCAN_EVENTS,
    Change,
    asked_users,
    change_count,
    recent_runs,
    user_results,
)
from mnemo.domain.tenancy import EventStatus, PlatformEvent
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
    runs = recent_runs(_events(tmp_path, made), "p")
    assert [r.id for r in runs] == [e.id for e in reversed(made) if e.event_type == DREAM]


def test_no_more_than_the_newest_events_are_read_and_no_more_than_a_page_of_runs_listed(tmp_path: Path) -> None:
    older_run = _event(DREAM, 0)
    adds = [_event("ADD", n) for n in range(1, SCAN_EVENTS + 1)]
    assert recent_runs(_events(tmp_path, [older_run, *adds]), "p") == []
    many = [_event(DREAM, n) for n in range(MAX_RUNS + 5)]
    runs = recent_runs(_events(tmp_path, many, "many"), "p")
    assert [r.id for r in runs] == [e.id for e in reversed(many)][:MAX_RUNS]


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
