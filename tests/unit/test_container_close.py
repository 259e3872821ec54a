"""Closing the local container closes its SQLite file with its WAL truncated, and a second close (the app's shutdown,
then the code after the server) does nothing."""

from __future__ import annotations

from pathlib import Path

from mnemo.composition.container import build_container
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry


def test_a_closed_container_left_an_empty_wal_and_closes_once(data_dir: Path, registry: CachedModelRegistry) -> None:
    # Given a container that wrote its configuration
    container = build_container(Settings(data_dir=data_dir, auth_disabled=True), registry)
    container.configuration.update({"custom_instructions": "Be brief."})
    closed: list[str] = []
    container.closers.append(lambda: closed.append("closer"))
    # When it is closed twice
    container.close()
    container.close()
    # Then what it opened was closed once, and its file's WAL is empty
    assert closed == ["closer"]
    wal = data_dir / "mnemo.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size == 0
