"""The ReflectionStore contract: every adapter of the port must pass this one suite.

What it holds: the list of projects with Synthesis on (idempotent on and off, in id order); a user claimed by one
run at a time (a claim holds until its lease ends, then may be taken over; the run the schedule queued renews the
schedule's claim, unless another claim replaced it); a scheduled claim refused while the
user's last run is more recent than `not_since`; a release that records the run (or leaves the user as before the
claim) and does nothing to a claim that replaced it; a project's drop taking its list entry and its users.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from mnemo.adapters.dynamodb.reflection_store import DynamoReflectionStore
from mnemo.adapters.sqlite.reflection_store import SqliteReflectionStore
from mnemo.ports.reflection_store import ReflectionState, ReflectionStore
from tests.support.store_backends import Backend, adapter_fixture, on_accounts_table, on_sqlite

T0 = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


ADAPTERS: dict[str, Backend[ReflectionStore]] = {
    "sqlite": on_sqlite(SqliteReflectionStore),
    "dynamodb": on_accounts_table(
        lambda client, table: DynamoReflectionStore(client, table, page_size=2), one_call_at_a_time=True
    ),
}
store = adapter_fixture(ADAPTERS)


def test_given_projects_turned_on_and_off_when_listed_then_the_ones_on_in_id_order(store: ReflectionStore):
    for project in ("p3", "p1", "p2", "p1"):
        store.set_enabled(project, True)
    store.set_enabled("p2", False)
    store.set_enabled("p9", False)  # never on: nothing to take off

    assert store.enabled_projects() == ["p1", "p3"]


def test_given_a_free_user_when_claimed_then_it_is_held_until_the_lease_ends(store: ReflectionStore):
    assert store.claim("p1", "alice", T0, lease=HOUR)

    state = store.states("p1")["alice"]
    assert state == ReflectionState("alice", last_run_at=None, claimed_at=T0, lease_until=T0 + HOUR)
    assert state.held(T0 + HOUR / 2) and not state.held(T0 + HOUR)
    assert not store.claim("p1", "alice", T0 + HOUR / 2, lease=HOUR)  # a run holds it
    assert store.claim("p1", "bob", T0 + HOUR / 2, lease=HOUR)  # another user is free
    assert store.claim("p2", "alice", T0, lease=HOUR)  # the same user of another project too


def test_given_a_claim_whose_run_died_when_its_lease_has_ended_then_another_run_takes_it_over(store: ReflectionStore):
    assert store.claim("p1", "alice", T0, lease=HOUR)
    later = T0 + HOUR + timedelta(seconds=1)

    assert store.claim("p1", "alice", later, lease=HOUR)
    store.release("p1", "alice", T0, ran=True)  # the first run, back from the dead: it no longer holds the claim

    state = store.states("p1")["alice"]
    assert state.claimed_at == later and state.last_run_at is None and state.held(later)


def test_given_a_claim_the_schedule_made_when_its_run_renews_it_then_the_run_holds_it(store: ReflectionStore):
    assert store.claim("p1", "alice", T0, lease=HOUR)
    started = T0 + timedelta(minutes=10)

    assert store.renew("p1", "alice", T0, started, lease=HOUR / 4)
    assert store.states("p1")["alice"] == ReflectionState("alice", claimed_at=started, lease_until=started + HOUR / 4)
    assert not store.renew("p1", "alice", T0, started, lease=HOUR)  # the old claim is no more
    store.release("p1", "alice", started, ran=True)
    assert not store.renew("p1", "alice", started, started, lease=HOUR)  # released
    assert not store.renew("p1", "nobody", T0, started, lease=HOUR)
    assert store.states("p1")["alice"] == ReflectionState("alice", last_run_at=started)
    assert "nobody" not in store.states("p1")


def test_given_a_finished_run_when_released_then_it_is_the_last_run_and_the_user_is_free(store: ReflectionStore):
    assert store.claim("p1", "alice", T0, lease=HOUR)
    store.release("p1", "alice", T0, ran=True)

    assert store.states("p1")["alice"] == ReflectionState("alice", last_run_at=T0)
    assert store.claim("p1", "alice", T0 + timedelta(minutes=5), lease=HOUR)  # an on-demand run: no interval


def test_given_a_failed_run_when_released_then_the_user_is_as_before_the_claim(store: ReflectionStore):
    assert store.claim("p1", "alice", T0, lease=HOUR)
    store.release("p1", "alice", T0, ran=True)
    assert store.claim("p1", "alice", T0 + DAY, lease=HOUR)
    store.release("p1", "alice", T0 + DAY, ran=False)

    assert store.states("p1")["alice"] == ReflectionState("alice", last_run_at=T0)


def test_given_a_recent_run_when_a_scheduled_claim_asks_for_none_since_then_it_is_refused(store: ReflectionStore):
    interval = 7 * DAY
    assert store.claim("p1", "alice", T0, lease=HOUR)
    store.release("p1", "alice", T0, ran=True)

    six_days = T0 + 6 * DAY
    assert not store.claim("p1", "alice", six_days, lease=HOUR, not_since=six_days - interval)
    seven_days = T0 + interval
    assert store.claim("p1", "alice", seven_days, lease=HOUR, not_since=seven_days - interval)
    assert store.claim("p1", "new-user", six_days, lease=HOUR, not_since=six_days - interval)  # never ran


def test_given_many_runs_claiming_one_user_at_once_then_exactly_one_wins(store: ReflectionStore):
    start = threading.Barrier(8)

    def claim(n: int) -> bool:
        start.wait()
        return store.claim("p1", "alice", T0 + timedelta(microseconds=n), lease=HOUR, not_since=T0 - DAY)

    with ThreadPoolExecutor(8) as pool:
        won = list(pool.map(claim, range(8)))

    assert won.count(True) == 1


def test_given_a_project_with_users_when_dropped_then_its_list_entry_and_users_are_gone(store: ReflectionStore):
    store.set_enabled("p1", True)
    store.set_enabled("p2", True)
    for n in range(5):  # over several pages of the DynamoDB store
        assert store.claim("p1", f"user-{n}", T0, lease=HOUR)
    assert store.claim("p2", "alice", T0, lease=HOUR)

    store.drop_project("p1")

    assert store.enabled_projects() == ["p2"]
    assert store.states("p1") == {}
    assert list(store.states("p2")) == ["alice"]
