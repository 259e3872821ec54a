"""The data dir is private (issue 12): it holds every memory and every password and key hash, so under the usual
umask (0022) the service still makes the directories 0700 and the files 0600 (the main SQLite file, a project's
namespace file, their -wal and -shm, the JWT secret), and tightens those an earlier version left open."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.composition.container import build_container
from mnemo.entrypoints.cli import local_jwt_secret
from mnemo.settings import Settings


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def open_to_others(root: Path) -> list[tuple[str, str]]:
    return [(str(p.relative_to(root)), oct(mode(p))) for p in [root, *root.rglob("*")] if mode(p) & 0o077]


def test_every_file_and_directory_of_a_fresh_data_dir_is_its_owners_alone(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", auth_disabled=True)
    local_jwt_secret(settings.jwt_secret_path)  # what `mnemo serve` does first without JWT_SECRET
    container = build_container(settings)
    try:
        assert container.platform is not None
        started = container.platform.tenancy.bootstrap("ada@example.com", "Acme")  # writes: -wal and -shm
        container.platform.namespaces.memory_service(started.project.id)  # the project's own file
        data = settings.data_dir
        created = {str(p.relative_to(data)) for p in data.rglob("*")}
        assert {
            "jwt_secret",
            "mnemo.sqlite3",
            "mnemo.sqlite3-wal",
            "mnemo.sqlite3-shm",
            "namespaces",
            f"namespaces/{started.project.id}.sqlite3",
        } <= created, created
        assert open_to_others(data) == []
        assert mode(data) == mode(data / "namespaces") == 0o700
        assert mode(settings.database_path) == mode(data / "jwt_secret") == 0o600
    finally:
        container.close()


def test_the_wal_and_shm_files_take_the_main_files_mode(tmp_path: Path) -> None:
    database = Database(tmp_path / "data" / "x.sqlite3")
    try:
        with database.write() as conn:
            conn.execute("CREATE TABLE t (x)")
            conn.execute("INSERT INTO t VALUES (1)")
        assert database.read().execute("SELECT x FROM t").fetchall() == [(1,)]
        for suffix in ("", "-wal", "-shm"):
            assert mode(tmp_path / "data" / f"x.sqlite3{suffix}") == 0o600, suffix
    finally:
        database.close()


def test_a_data_dir_an_earlier_version_left_open_is_tightened_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    first = Database(data / "mnemo.sqlite3")
    with first.write() as conn:
        conn.execute("CREATE TABLE t (x)")
    first.close()
    for suffix in ("-wal", "-shm"):  # as an unclean stop leaves them
        (data / f"mnemo.sqlite3{suffix}").touch()
    for path in data.iterdir():
        path.chmod(0o644)
    data.chmod(0o755)

    with caplog.at_level(logging.WARNING, logger="mnemo.adapters.sqlite.database"):
        reopened = Database(data / "mnemo.sqlite3")
    try:
        assert open_to_others(data) == []
        assert mode(data) == 0o700
        assert mode(data / "mnemo.sqlite3") == 0o600
        assert reopened.read().execute("SELECT count(*) FROM t").fetchone() == (0,)  # the data is intact
        warned = " ".join(r.getMessage() for r in caplog.records)
        assert "its mode is now 0700" in warned and "its mode is now 0600" in warned
    finally:
        reopened.close()


def test_a_private_data_dir_is_opened_without_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    Database(tmp_path / "data" / "mnemo.sqlite3").close()
    with caplog.at_level(logging.WARNING):
        Database(tmp_path / "data" / "mnemo.sqlite3").close()
    assert caplog.records == []


def test_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    os.umask(0o277)  # would take the owner's write bit too
    database = Database(tmp_path / "data" / "mnemo.sqlite3")
    try:
        with database.write() as conn:
            conn.execute("CREATE TABLE t (x)")
        assert mode(tmp_path / "data") == 0o700
        assert mode(tmp_path / "data" / "mnemo.sqlite3") == 0o600
    finally:
        database.close()


def test_a_shared_sticky_directory_is_left_as_it_is(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    with caplog.at_level(logging.WARNING, logger="mnemo.adapters.sqlite.database"):
        Database(shared / "mnemo.sqlite3").close()
    assert mode(shared) == 0o1777
    assert mode(shared / "mnemo.sqlite3") == 0o600
    assert "shared directory" in caplog.text
