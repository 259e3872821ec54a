"""The two backends a store's contract suite runs on, built once here rather than in each suite: a fresh SQLite
database, and DynamoDB's accounts table under moto. A suite names how its adapter is made on each and gets the
parametrised fixture from `adapter_fixture`:

    ADAPTERS = {
        "sqlite": on_sqlite(SqliteWebhookStore),
        "dynamodb": on_accounts_table(lambda client, table: DynamoWebhookStore(client, table)),
    }
    store = adapter_fixture(ADAPTERS)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from moto import mock_aws

from mnemo.adapters.sqlite.database import Database
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_accounts_table

S = TypeVar("S")
Backend = Callable[[Path], AbstractContextManager[S]]


def on_sqlite(make: Callable[[Database], S]) -> Backend[S]:
    """The store made on a fresh SQLite database in the test's directory, closed after the test."""

    @contextmanager
    def built(tmp_path: Path) -> Iterator[S]:
        database = Database(tmp_path / "main.sqlite3")
        try:
            yield make(database)
        finally:
            database.close()

    return built


def on_accounts_table(make: Callable[[Any, str], S], *, one_call_at_a_time: bool = False) -> Backend[S]:
    """The store made on an empty accounts table under moto. moto's backends are not thread-safe (AWS is): a suite
    that calls the store from several threads asks for `one_call_at_a_time`, so that calls take turns."""

    @contextmanager
    def built(_tmp_path: Path) -> Iterator[S]:
        with mock_aws():
            client = moto_aws.client("dynamodb")
            create_accounts_table(client, "accounts")
            yield make(moto_aws.OneCallAtATime(client) if one_call_at_a_time else client, "accounts")

    return built


def adapter_fixture(adapters: dict[str, Backend[S]]) -> Any:
    """A fixture that runs each test once per backend of `adapters`, on a store built fresh for the test."""

    @pytest.fixture(params=sorted(adapters))
    def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[S]:
        with adapters[request.param](tmp_path) as made:
            yield made

    return store
