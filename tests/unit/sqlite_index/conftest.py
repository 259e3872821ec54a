"""Fixtures of the index's unit tests: an SQLite file of their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.adapters.sqlite.database import Database
from tests.unit.sqlite_index.making import database


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    yield from database(tmp_path)
