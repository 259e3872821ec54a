"""The RequestLogStore contract: every adapter of the port must pass this one suite (register it in ADAPTERS)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.request_log_store import DynamoRequestLogStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.request_log_store import SqliteRequestLogStore
from mnemo.domain.request_log import RequestLogEntry
from mnemo.ports.request_log_store import RequestLogStore
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_request_log_table

T0 = datetime(2025, 3, 1, 12, 0, 0, 654321, tzinfo=UTC)


@contextmanager
def _sqlite(tmp_path: Path) -> Iterator[RequestLogStore]:
    db = Database(tmp_path / "log.sqlite3")
    try:
        yield SqliteRequestLogStore(db)
    finally:
        db.close()


@contextmanager
def _dynamodb(tmp_path: Path) -> Iterator[RequestLogStore]:
    """Under moto, with pages of 2 items so that every shard's query runs over several pages."""
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_request_log_table(client, "mnemo-request-log-test")
        yield DynamoRequestLogStore(client, "mnemo-request-log-test", retention=timedelta(days=30), page_size=2)


ADAPTERS: dict[str, Callable[[Path], AbstractContextManager[RequestLogStore]]] = {
    "sqlite": _sqlite,
    "dynamodb": _dynamodb,
}


@pytest.fixture(params=list(ADAPTERS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RequestLogStore]:
    with ADAPTERS[request.param](tmp_path) as built:
        yield built


def entry(n: int, at: datetime) -> RequestLogEntry:
    return RequestLogEntry(f"e{n}", "GET", f"/memories/{n}", 200, 1.25, "bearer", at, "u1", None, f"r{n}")


def test_entries_come_back_newest_first_unchanged_and_limited(store: RequestLogStore) -> None:
    entries = [entry(n, T0 + timedelta(seconds=n)) for n in range(5)]
    keyed = RequestLogEntry(
        "k", "POST", "/memories", 401, 0.5, "api_key", T0 + timedelta(seconds=9), None, "m0sk_abcdefg"
    )
    store.append([entries[3], entries[0], entries[4]])
    store.append([entries[1], entries[2], keyed])
    store.append([])
    assert store.recent(100) == [keyed, *reversed(entries)]
    assert [e.id for e in store.recent(2)] == ["k", "e4"]
    assert store.recent(0) == []


def test_entries_older_than_the_cut_off_are_pruned(store: RequestLogStore) -> None:
    store.append([entry(n, T0 + timedelta(days=n)) for n in range(10)])
    assert store.prune(T0 + timedelta(days=7)) == 7
    assert [e.id for e in store.recent(100)] == ["e9", "e8", "e7"]
    assert store.prune(T0) == 0
