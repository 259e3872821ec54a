"""The ConsoleAccountStore contract: every adapter of the port (SQLite, DynamoDB under moto) passes this one suite.
Sessions and invitations are found by the digest of their secret; what an adapter writes never holds the secret.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from mnemo.adapters.dynamodb.console_account_store import DynamoConsoleAccountStore
from mnemo.adapters.sqlite.console_account_store import SqliteConsoleAccountStore
from mnemo.adapters.sqlite.database import Database
from mnemo.domain.console_accounts import InvitationRecord, SessionRecord, new_secret, secret_digest
from mnemo.domain.memory import new_id
from mnemo.domain.tenancy import Role
from mnemo.ports.console_account_store import ConsoleAccountStore
from tests.support import moto_aws
from tests.support.dynamodb_tables import create_accounts_table

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
TABLE = "console-accounts"


@dataclass
class Built:
    store: ConsoleAccountStore
    raw: Callable[[], str]  # everything the backend holds, as text


@contextmanager
def sqlite_store(tmp_path: Path) -> Iterator[Built]:
    path = tmp_path / "console.sqlite3"
    database = Database(path)

    def raw() -> str:
        database.checkpoint()
        with sqlite3.connect(path) as conn:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return repr([list(conn.execute(f"SELECT * FROM {t}")) for t in tables])

    try:
        yield Built(SqliteConsoleAccountStore(database), raw)
    finally:
        database.close()


@contextmanager
def dynamodb_store(_tmp_path: Path) -> Iterator[Built]:
    """DynamoDB under moto; pages of 2 items, so that every query below runs over several pages."""
    with mock_aws():
        client = moto_aws.client("dynamodb")
        create_accounts_table(client, TABLE)

        def raw() -> str:
            return repr(client.scan(TableName=TABLE)["Items"])

        yield Built(DynamoConsoleAccountStore(client, TABLE, page_size=2), raw)


ADAPTERS: dict[str, Callable[[Path], AbstractContextManager[Built]]] = {
    "sqlite": sqlite_store,
    "dynamodb": dynamodb_store,
}


@pytest.fixture(params=sorted(ADAPTERS))
def built(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Built]:
    with ADAPTERS[request.param](tmp_path) as made:
        yield made


@pytest.fixture
def store(built: Built) -> ConsoleAccountStore:
    return built.store


def session(user_id: str, *, at: datetime = T0) -> tuple[str, SessionRecord]:
    secret = new_secret()
    return secret, SessionRecord(secret_digest(secret), user_id, at, at, at + timedelta(days=7))


def invitation(
    org_id: str, project_id: str | None = None, *, email: str = "ana@example.com", at: datetime = T0, **changes: Any
) -> tuple[str, InvitationRecord]:
    token = new_secret()
    record = InvitationRecord(
        id=changes.get("id", new_id()),
        token_hash=secret_digest(token),
        email=email,
        org_id=org_id,
        project_id=project_id,
        role=changes.get("role", Role.READER),
        invited_by="inviter",
        created_at=at,
        expires_at=at + timedelta(days=7),
    )
    return token, record


# ---- passwords ----


def test_a_password_hash_is_absent_until_set_and_then_replaced(store: ConsoleAccountStore) -> None:
    assert store.password_hash("u1") is None
    store.set_password_hash("u1", "$argon2id$one")
    store.set_password_hash("u1", "$argon2id$two")
    store.set_password_hash("u2", "$argon2id$other")
    assert (store.password_hash("u1"), store.password_hash("u2")) == ("$argon2id$two", "$argon2id$other")


# ---- sessions ----


def test_a_session_is_found_by_its_hash_touched_and_deleted(store: ConsoleAccountStore) -> None:
    _secret, record = session("u1")
    store.add_session(record)
    assert store.get_session(record.session_hash) == record

    store.touch_session(record.session_hash, T0 + timedelta(hours=1))
    touched = store.get_session(record.session_hash)
    assert touched is not None and touched.last_seen_at == T0 + timedelta(hours=1)
    assert touched.expires_at == record.expires_at

    store.delete_session(record.session_hash)
    store.delete_session(record.session_hash)  # idempotent
    store.touch_session(record.session_hash, T0)  # nothing comes back
    assert store.get_session(record.session_hash) is None


def test_ending_a_users_sessions_keeps_the_one_asked_and_other_users(store: ConsoleAccountStore) -> None:
    mine = [session("u1")[1] for _ in range(3)]
    theirs = session("u2")[1]
    for record in [*mine, theirs]:
        store.add_session(record)

    assert store.delete_sessions_of("u1", keep=mine[0].session_hash) == 2
    assert [store.get_session(r.session_hash) is not None for r in mine] == [True, False, False]
    assert store.get_session(theirs.session_hash) == theirs
    assert store.delete_sessions_of("u1") == 1
    assert store.get_session(mine[0].session_hash) is None


def test_a_deleted_session_is_not_ended_twice(store: ConsoleAccountStore) -> None:
    _s, record = session("u1")
    store.add_session(record)
    store.delete_session(record.session_hash)
    assert store.delete_sessions_of("u1") == 0


# ---- invitations ----


def test_an_invitation_is_found_by_its_token_hash_and_listed_oldest_first(store: ConsoleAccountStore) -> None:
    token, first = invitation("org1")
    _t, second = invitation("org1", "proj1", email="bo@example.com", at=T0 + timedelta(minutes=1), role=Role.OWNER)
    _t, third = invitation("org1", at=T0 + timedelta(minutes=2), email="cy@example.com")
    _t, elsewhere = invitation("org2")
    for record in (third, first, second, elsewhere):
        store.add_invitation(record)

    assert store.invitation_by_token(secret_digest(token)) == first
    assert store.invitation_by_token(secret_digest("not a token")) is None
    assert store.invitations_of("org1") == [first, second, third]
    assert store.invitations_of("org3") == []


def test_an_invitation_is_taken_once(store: ConsoleAccountStore) -> None:
    token, record = invitation("org1", "proj1")
    store.add_invitation(record)

    assert store.take_invitation("org2", record.id) is None  # another organization's id is not this one
    assert store.take_invitation("org1", record.id) == record
    assert store.take_invitation("org1", record.id) is None
    assert store.invitation_by_token(secret_digest(token)) is None
    assert store.invitations_of("org1") == []


def test_the_invitations_of_a_project_or_of_a_whole_organization_are_deleted(store: ConsoleAccountStore) -> None:
    org_wide = invitation("org1")
    of_p1 = invitation("org1", "p1", email="b@example.com", at=T0 + timedelta(seconds=1))
    of_p2 = invitation("org1", "p2", email="c@example.com", at=T0 + timedelta(seconds=2))
    other = invitation("org2", "p9")
    for _token, record in (org_wide, of_p1, of_p2, other):
        store.add_invitation(record)

    assert store.delete_invitations("org1", "p1") == 1
    assert [r.id for r in store.invitations_of("org1")] == [org_wide[1].id, of_p2[1].id]
    assert store.invitation_by_token(secret_digest(of_p1[0])) is None

    assert store.delete_invitations("org1") == 2
    assert store.invitations_of("org1") == []
    assert store.invitation_by_token(secret_digest(org_wide[0])) is None
    assert store.invitations_of("org2") == [other[1]]


def test_no_secret_is_stored_only_its_digest(built: Built) -> None:
    secret, record = session("u1")
    token, invited = invitation("org1")
    built.store.add_session(record)
    built.store.add_invitation(invited)

    held = built.raw()
    assert secret not in held and token not in held
    assert record.session_hash in held and invited.token_hash in held
