"""The console's password and session modules on their own: the password rule, a check that hashes alike for
every kind of failure, rehashing on sign-in when the costs changed; a session's expiry and its CSRF token."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from mnemo.adapters.crypto.argon2_passwords import Argon2PasswordHasher
from mnemo.adapters.sqlite.console_account_store import SqliteConsoleAccountStore
from mnemo.adapters.sqlite.database import Database
from mnemo.domain.console_accounts import MAX_PASSWORD_LENGTH, password_problem, secret_digest
from mnemo.errors import ValidationError
from mnemo.services.platform.console_accounts.passwords import Passwords, checked_password
from mnemo.services.platform.console_accounts.policy import ConsolePolicy
from mnemo.services.platform.console_accounts.sessions import Sessions, csrf_token
from tests.unit.console_support import T0, Clock


class CountingHasher(Argon2PasswordHasher):
    def __init__(self, time_cost: int = 1) -> None:
        super().__init__(time_cost=time_cost, memory_kib=64, parallelism=1)
        self.verified = 0

    def verify(self, password_hash: str, password: str) -> bool:
        self.verified += 1
        return super().verify(password_hash, password)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteConsoleAccountStore]:
    database = Database(tmp_path / "c.sqlite3")
    try:
        yield SqliteConsoleAccountStore(database)
    finally:
        database.close()


@pytest.mark.parametrize("weak", ["", "eleven char", " " * 12, "x" * (MAX_PASSWORD_LENGTH + 1), None, 12345678901234])
def test_a_weak_or_malformed_password_is_refused_with_the_rule(weak: object) -> None:
    with pytest.raises(ValidationError) as refused:
        checked_password(weak)
    assert "at least 12 characters" in refused.value.message or "only spaces" in refused.value.message


def test_a_password_of_twelve_characters_or_more_is_taken() -> None:
    assert password_problem("twelve chars") is None and checked_password("twelve chars") == "twelve chars"


def test_every_kind_of_failure_costs_one_hash_check(store: SqliteConsoleAccountStore) -> None:
    hasher = CountingHasher()
    passwords = Passwords(store, hasher)
    passwords.set("u1", "the right password")
    for user_id, password in [(None, "anything at all"), ("u2", "anything at all"), ("u1", "x" * 5000)]:
        before = hasher.verified
        assert passwords.verify(user_id, password) is False
        assert hasher.verified == before + 1
    assert passwords.verify("u1", "the right password") is True


def test_a_hash_made_with_other_costs_is_remade_at_the_next_right_password(store: SqliteConsoleAccountStore) -> None:
    Passwords(store, CountingHasher(time_cost=1)).set("u1", "the right password")
    old = store.password_hash("u1")
    assert Passwords(store, CountingHasher(time_cost=2)).verify("u1", "the right password")
    new = store.password_hash("u1")
    assert new is not None and new != old and "t=2" in new


def test_a_session_ends_at_its_idle_or_absolute_expiry_whichever_is_first(store: SqliteConsoleAccountStore) -> None:
    clock = Clock()
    policy = ConsolePolicy(session_idle=timedelta(hours=1), session_lifetime=timedelta(hours=2))
    sessions = Sessions(store, policy, clock)
    session_id, record = sessions.begin("u1")
    assert record.session_hash == secret_digest(session_id) and sessions.expiry(record) == T0 + timedelta(hours=1)

    clock.advance(minutes=59)
    moved = sessions.live(session_id)
    assert moved is not None and sessions.expiry(moved) == T0 + timedelta(hours=1, minutes=59)
    clock.advance(minutes=59)
    last = sessions.live(session_id)
    assert last is not None and sessions.expiry(last) == T0 + timedelta(hours=2)
    clock.advance(minutes=2)
    assert sessions.live(session_id) is None
    assert store.get_session(record.session_hash) is None  # an expired session is deleted when met


def test_the_csrf_token_is_the_sessions_own_and_not_the_stored_digest() -> None:
    assert csrf_token("a") == csrf_token("a") != csrf_token("b")
    assert csrf_token("a") != secret_digest("a")


def test_ending_the_others_keeps_the_given_session(store: SqliteConsoleAccountStore) -> None:
    sessions = Sessions(store, ConsolePolicy(), Clock())
    kept_id, kept = sessions.begin("u1")
    other_id, _other = sessions.begin("u1")
    assert sessions.end_others("u1", kept) == 1
    assert sessions.live(kept_id) is not None and sessions.live(other_id) is None
