"""What the console sign-in's unit tests share: a clock the test moves, cheap argon2id, and the stores on a fresh
SQLite file with one organization (an OWNER, a READER) and a project."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from mnemo.adapters.crypto.argon2_passwords import Argon2PasswordHasher
from mnemo.adapters.sqlite.console_account_store import SqliteConsoleAccountStore
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.domain.tenancy import Organization, PlatformUser, Project, Role
from mnemo.services.platform.console_accounts.policy import ConsolePolicy
from mnemo.services.platform.console_accounts.service import ConsoleAccounts

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
PASSWORD = "correct horse battery"
CLIENT = "203.0.113.7"


class Clock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)


def cheap_hasher() -> Argon2PasswordHasher:
    return Argon2PasswordHasher(time_cost=1, memory_kib=64, parallelism=1)


@dataclass
class World:
    clock: Clock
    directory: SqliteTenancyStore
    store: SqliteConsoleAccountStore
    console: ConsoleAccounts
    owner: PlatformUser
    reader: PlatformUser
    org: Organization
    project: Project
    path: Path


@contextmanager
def world(tmp_path: Path, policy: ConsolePolicy | None = None) -> Iterator[World]:
    clock = Clock()
    path = tmp_path / "console.sqlite3"
    database = Database(path)
    try:
        directory = SqliteTenancyStore(database)
        store = SqliteConsoleAccountStore(database)
        owner = directory.add_user(PlatformUser("u-owner", "owner@example.com", T0))
        reader = directory.add_user(PlatformUser("u-reader", "reader@example.com", T0))
        org = Organization("org_1", "Acme", T0, T0)
        directory.add_org(org, owner)
        directory.set_org_member(org.id, reader, Role.READER)
        project = Project(id="proj_1", org_id=org.id, name="P", created_at=T0, updated_at=T0)
        directory.add_project(project, owner)
        console = ConsoleAccounts(directory, store, cheap_hasher(), policy, clock)
        console.set_password(owner.email, PASSWORD)
        yield World(clock, directory, store, console, owner, reader, org, project, path)
    finally:
        database.close()
