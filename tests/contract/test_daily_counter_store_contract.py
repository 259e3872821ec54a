"""The DailyCounterStore contract (mnemo.ports.usage_counters): every adapter passes this one suite. A project's
counters per day add up (concurrent bumps included), are read back over an inclusive range of days, never across
projects, and go when the project is deleted."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime
from pathlib import Path

from mnemo.adapters.dynamodb.tenancy_store import DynamoTenancyStore
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.domain.memory import new_id
from mnemo.domain.tenancy import Organization, PlatformUser, Project
from mnemo.ports.tenancy_store import TenancyStore
from tests.support.store_backends import Backend, adapter_fixture, on_accounts_table, on_sqlite

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
NOV = [date(2026, 11, day) for day in range(1, 31)]


# DynamoDB in pages of 2 items, so that a range of days is read over several pages.
ADAPTERS: dict[str, Backend[TenancyStore]] = {
    "sqlite": on_sqlite(SqliteTenancyStore),
    "dynamodb": on_accounts_table(lambda client, table: DynamoTenancyStore(client, table, page_size=2)),
}
store = adapter_fixture(ADAPTERS)


def project(store: TenancyStore) -> Project:
    owner = store.add_user(PlatformUser(new_id(), f"{new_id()[:8]}@example.com", T0))
    org = Organization(id=f"org_{new_id()[:8]}", name="o", created_at=T0, updated_at=T0)
    store.add_org(org, owner)
    made = Project(id=f"proj_{new_id()[:8]}", org_id=org.id, name="p", created_at=T0, updated_at=T0)
    store.add_project(made, owner)
    return made


def test_bumps_add_up_per_day_and_name(store: TenancyStore) -> None:
    p = project(store)
    store.bump_daily(p.id, NOV[4], "search_events")
    store.bump_daily(p.id, NOV[4], "search_events", 4)
    store.bump_daily(p.id, NOV[4], "llm_input_tokens", 1_200)
    store.bump_daily(p.id, NOV[5], "search_events")
    assert store.daily_counters(p.id, NOV[0], NOV[-1]) == {
        NOV[4]: {"search_events": 5, "llm_input_tokens": 1_200},
        NOV[5]: {"search_events": 1},
    }


def test_the_range_includes_both_ends_and_nothing_outside(store: TenancyStore) -> None:
    p = project(store)
    for day in NOV:
        store.bump_daily(p.id, day, "add_events", day.day)
    store.bump_daily(p.id, date(2026, 12, 1), "add_events")
    store.bump_daily(p.id, date(2026, 10, 31), "add_events")
    found = store.daily_counters(p.id, NOV[9], NOV[19])
    assert found == {day: {"add_events": day.day} for day in NOV[9:20]}
    assert store.daily_counters(p.id, NOV[9], NOV[9]) == {NOV[9]: {"add_events": 10}}
    assert store.daily_counters(p.id, date(2027, 1, 1), date(2027, 12, 31)) == {}


def test_counters_of_a_day_stay_apart_from_the_totals(store: TenancyStore) -> None:
    p = project(store)
    store.bump_counter(p.id, "search_events", 7)
    store.bump_daily(p.id, NOV[0], "search_events", 2)
    assert store.counters(p.id) == {"search_events": 7}
    assert store.daily_counters(p.id, NOV[0], NOV[0]) == {NOV[0]: {"search_events": 2}}


def test_another_projects_days_are_never_answered(store: TenancyStore) -> None:
    one, two = project(store), project(store)
    store.bump_daily(one.id, NOV[0], "search_events", 3)
    assert store.daily_counters(two.id, NOV[0], NOV[-1]) == {}
    assert store.daily_counters(one.id, NOV[0], NOV[-1]) == {NOV[0]: {"search_events": 3}}


def test_concurrent_bumps_never_lose_one_on_sqlite(tmp_path: Path) -> None:
    """On SQLite, the upsert in one write transaction. (DynamoDB's ADD is atomic in the service itself; moto, which
    stands in for it here, does not serialize concurrent updates, so the suite cannot show it there.)"""
    with ADAPTERS["sqlite"](tmp_path) as store:
        bumped_concurrently(store)


def bumped_concurrently(store: TenancyStore) -> None:
    p = project(store)

    def bump() -> None:
        for _ in range(10):
            store.bump_daily(p.id, NOV[0], "search_events")

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.daily_counters(p.id, NOV[0], NOV[0]) == {NOV[0]: {"search_events": 40}}


def test_deleting_the_project_deletes_its_days(store: TenancyStore) -> None:
    gone, kept = project(store), project(store)
    for target in (gone, kept):
        store.bump_daily(target.id, NOV[0], "add_events")
        store.bump_daily(target.id, NOV[1], "llm_output_tokens", 50)
    store.delete_project(gone.id)
    assert store.daily_counters(gone.id, NOV[0], NOV[-1]) == {}
    assert store.daily_counters(kept.id, NOV[0], NOV[-1]) == {
        NOV[0]: {"add_events": 1},
        NOV[1]: {"llm_output_tokens": 50},
    }
