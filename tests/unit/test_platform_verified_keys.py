"""The platform's verified-key cache (TenancyService.verified): a key checked once answers from memory while the
store's auth epoch stands still; any change that could alter the answer (a key revoked, a membership ended, the
project changed) moves the epoch, so the next call reads the store again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.services.platform.tenancy.service import TenancyService


class CountingStore:
    """The SQLite store, counting the key lookups that reach it."""

    def __init__(self, store: SqliteTenancyStore) -> None:
        self._store = store
        self.lookups = 0

    def key_by_hash(self, key_hash: str) -> Any:
        self.lookups += 1
        return self._store.key_by_hash(key_hash)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "main.sqlite3")
    yield database
    database.close()


def test_given_a_key_checked_once_then_it_is_answered_from_memory_until_something_changes(db: Database):
    store = CountingStore(SqliteTenancyStore(db))
    clock = Clock()
    tenancy = TenancyService(store, lambda _namespace: None, clock)
    started = tenancy.bootstrap("owner@example.com", "Acme")
    assert tenancy.verified(started.api_key) is None  # never checked

    caller = tenancy.authenticate(started.api_key)
    assert tenancy.verified(started.api_key) == caller
    assert store.lookups == 1

    tenancy.update_project(started.org.id, started.project.id, started.user, {"decay": True})

    assert tenancy.verified(started.api_key) is None  # the project changed: read again
    again = tenancy.authenticate(started.api_key)
    assert again.project.decay is True
    assert tenancy.verified(started.api_key) == again


def test_given_a_cached_key_when_it_is_revoked_then_the_cache_no_longer_answers(db: Database):
    tenancy = TenancyService(SqliteTenancyStore(db), lambda _namespace: None, Clock())
    started = tenancy.bootstrap("owner@example.com", "Acme")
    caller = tenancy.authenticate(started.api_key)
    assert tenancy.verified(started.api_key) == caller

    tenancy.revoke_key(started.org.id, started.project.id, started.user, caller.key_id)

    assert tenancy.verified(started.api_key) is None


def test_given_a_cached_key_when_its_use_is_due_to_be_recorded_then_the_store_is_read(db: Database):
    clock = Clock()
    tenancy = TenancyService(SqliteTenancyStore(db), lambda _namespace: None, clock)
    started = tenancy.bootstrap("owner@example.com", "Acme")
    tenancy.authenticate(started.api_key)
    clock.at += timedelta(minutes=5)

    assert tenancy.verified(started.api_key) is None  # authenticate records the use, then caches again
    tenancy.authenticate(started.api_key)
    assert tenancy.verified(started.api_key) is not None
