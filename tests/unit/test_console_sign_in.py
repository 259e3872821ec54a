"""Signing in to the console: email and password, a session with its CSRF token, sign-out, expiry (idle and
absolute), password change ending the other sessions, and the session id stored only hashed."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.errors import AuthenticationError, NotFoundError, ValidationError
from mnemo.ports.console_auth import ConsoleAuth
from mnemo.services.platform.console_accounts.policy import ConsolePolicy
from tests.unit.console_support import CLIENT, PASSWORD, T0, World, world


@pytest.fixture
def w(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as built:
        yield built


def test_a_user_signs_in_with_their_password_and_the_session_is_found_by_its_id(w: World) -> None:
    console: ConsoleAuth = w.console  # what the web console is given (mypy checks the port is implemented)
    signed_in = console.sign_in(" Owner@Example.com ", PASSWORD, CLIENT)

    found = w.console.session(signed_in.session_id)
    assert found is not None and found.user == w.owner
    assert found.csrf_token == signed_in.csrf_token and len(found.csrf_token) == 64
    assert signed_in.expires_at == w.clock.at + ConsolePolicy().session_idle


def test_each_session_has_its_own_id_and_csrf_token(w: World) -> None:
    first = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    second = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    assert first.session_id != second.session_id and first.csrf_token != second.csrf_token


@pytest.mark.parametrize(
    ("email", "password"),
    [("owner@example.com", "wrong password here"), ("nobody@example.com", PASSWORD), ("reader@example.com", PASSWORD)],
)
def test_a_wrong_password_an_unknown_email_and_a_user_without_password_get_one_answer(
    w: World, email: str, password: str
) -> None:
    with pytest.raises(AuthenticationError, match=r"^Invalid email or password\.$"):
        w.console.sign_in(email, password, CLIENT)


def test_an_unknown_or_malformed_session_id_is_no_session(w: World) -> None:
    assert w.console.session("") is None
    assert w.console.session("x" * 10_000) is None
    assert w.console.session("not-a-session") is None


def test_sign_out_ends_the_session_and_may_be_repeated(w: World) -> None:
    signed_in = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    w.console.sign_out(signed_in.session_id)
    w.console.sign_out(signed_in.session_id)
    assert w.console.session(signed_in.session_id) is None


def test_an_idle_session_ends_and_each_use_moves_the_idle_expiry_on(w: World) -> None:
    signed_in = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    w.clock.advance(hours=7)
    used = w.console.session(signed_in.session_id)
    assert used is not None and used.expires_at == w.clock.at + ConsolePolicy().session_idle
    w.clock.advance(hours=7)
    assert w.console.session(signed_in.session_id) is not None  # 14 h after sign-in, 7 h idle
    w.clock.advance(hours=8)
    assert w.console.session(signed_in.session_id) is None


def test_a_session_ends_at_its_absolute_expiry_however_often_it_is_used(w: World) -> None:
    signed_in = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    for _ in range(41):  # every 4 h: never idle, 164 h in all
        w.clock.advance(hours=4)
        assert w.console.session(signed_in.session_id) is not None
    last = w.console.session(signed_in.session_id)
    assert last is not None and last.expires_at == T0 + ConsolePolicy().session_lifetime
    w.clock.advance(hours=4)  # 168 h: seven days
    assert w.console.session(signed_in.session_id) is None


def test_a_password_change_ends_the_users_other_sessions_and_keeps_this_one(w: World) -> None:
    here = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    elsewhere = w.console.sign_in(w.owner.email, PASSWORD, "198.51.100.1")
    w.console.change_password(here.session_id, PASSWORD, "a new and longer secret")

    assert w.console.session(here.session_id) is not None
    assert w.console.session(elsewhere.session_id) is None
    with pytest.raises(AuthenticationError):
        w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    assert w.console.sign_in(w.owner.email, "a new and longer secret", CLIENT).user == w.owner


def test_a_password_change_needs_the_current_password_and_a_strong_new_one(w: World) -> None:
    here = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    with pytest.raises(AuthenticationError, match="Current password is incorrect"):
        w.console.change_password(here.session_id, "not the password", "a new and longer secret")
    with pytest.raises(ValidationError, match="at least 12 characters"):
        w.console.change_password(here.session_id, PASSWORD, "short")
    with pytest.raises(AuthenticationError, match="session has ended"):
        w.console.change_password("no-such-session", PASSWORD, "a new and longer secret")
    assert w.console.sign_in(w.owner.email, PASSWORD, CLIENT).user == w.owner


def test_an_operator_sets_a_password_which_ends_every_session(w: World) -> None:
    before = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    w.console.set_password(w.reader.email, "the reader's own secret")
    w.console.set_password(w.owner.email, "the owner's next secret")

    assert w.console.session(before.session_id) is None
    assert w.console.sign_in(w.reader.email, "the reader's own secret", CLIENT).user == w.reader
    with pytest.raises(NotFoundError):
        w.console.set_password("ghost@example.com", "whatever it is long")
    with pytest.raises(ValidationError, match="at least 12"):
        w.console.set_password(w.reader.email, "tiny")


def test_neither_the_session_id_nor_the_password_is_stored_in_clear(w: World) -> None:
    signed_in = w.console.sign_in(w.owner.email, PASSWORD, CLIENT)
    with sqlite3.connect(w.path) as conn:
        held = repr(list(conn.execute("SELECT * FROM console_sessions"))) + repr(
            list(conn.execute("SELECT * FROM console_passwords"))
        )
    assert signed_in.session_id not in held and signed_in.csrf_token not in held and PASSWORD not in held
    assert "$argon2id$" in held
