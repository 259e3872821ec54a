"""Invitations: an OWNER invites an email to an organization or a project; the one-time link's token accepts it
by setting a password (a new user) or giving the account's password (an existing one); invitations expire, are
spent once, are revoked by an OWNER, and are stored only by their token's digest."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from mnemo.domain.tenancy import Role
from mnemo.errors import AuthenticationError, NotFoundError, PermissionDeniedError, ValidationError
from mnemo.ports.tenancy_store import role_of
from tests.unit.console_support import CLIENT, World, world

NEW_PASSWORD = "a brand new secret"


@pytest.fixture
def w(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as built:
        yield built


def test_a_new_email_accepts_by_setting_a_password_and_becomes_a_member_with_the_role(w: World) -> None:
    invited = w.console.invite(w.owner, w.org.id, w.project.id, "Ana@Example.com", Role.OWNER)
    assert invited.token is not None and invited.email == "ana@example.com"
    assert w.directory.user_by_email("ana@example.com") is None  # not a user, nor a member, until she accepts
    assert w.console.invitation(invited.token) == replace(invited, token=None)

    signed_in = w.console.accept(invited.token, NEW_PASSWORD, CLIENT)

    assert signed_in.user.email == "ana@example.com"
    assert role_of(w.directory.project_members(w.project.id), signed_in.user.id) is Role.OWNER
    assert w.console.session(signed_in.session_id) is not None
    assert w.console.sign_in("ana@example.com", NEW_PASSWORD, CLIENT).user == signed_in.user


def test_an_organization_invitation_makes_an_organization_member(w: World) -> None:
    invited = w.console.invite(w.owner, w.org.id, None, "bo@example.com", Role.READER)
    assert invited.token is not None
    user = w.console.accept(invited.token, NEW_PASSWORD, CLIENT).user
    assert role_of(w.directory.org_members(w.org.id), user.id) is Role.READER


def test_a_token_is_spent_once(w: World) -> None:
    invited = w.console.invite(w.owner, w.org.id, None, "bo@example.com", Role.READER)
    assert invited.token is not None
    w.console.accept(invited.token, NEW_PASSWORD, CLIENT)
    assert w.console.invitation(invited.token) is None
    with pytest.raises(NotFoundError):
        w.console.accept(invited.token, NEW_PASSWORD, CLIENT)


def test_a_weak_password_is_refused_and_the_token_stays_usable(w: World) -> None:
    invited = w.console.invite(w.owner, w.org.id, None, "bo@example.com", Role.READER)
    assert invited.token is not None
    with pytest.raises(ValidationError, match="at least 12 characters"):
        w.console.accept(invited.token, "short", CLIENT)
    assert w.console.accept(invited.token, NEW_PASSWORD, CLIENT).user.email == "bo@example.com"


def test_an_invitation_expires(w: World) -> None:
    invited = w.console.invite(w.owner, w.org.id, None, "bo@example.com", Role.READER)
    assert invited.token is not None and invited.expires_at == w.clock.at + timedelta(days=7)
    w.clock.advance(days=7)
    assert w.console.invitation(invited.token) is None
    assert w.console.invitations(w.owner, w.org.id, None) == []
    with pytest.raises(NotFoundError):
        w.console.accept(invited.token, NEW_PASSWORD, CLIENT)


def test_an_existing_account_accepts_with_its_own_password_only(w: World) -> None:
    w.console.set_password(w.reader.email, "the reader's secret")
    invited = w.console.invite(w.owner, w.org.id, w.project.id, w.reader.email, Role.OWNER)
    assert invited.token is not None
    with pytest.raises(AuthenticationError):
        w.console.accept(invited.token, "a password of my choosing", CLIENT)  # the inviter cannot take it over
    assert w.console.sign_in(w.reader.email, "the reader's secret", CLIENT).user == w.reader
    assert w.console.accept(invited.token, "the reader's secret", CLIENT).user == w.reader
    assert role_of(w.directory.project_members(w.project.id), w.reader.id) is Role.OWNER


def test_an_account_without_a_console_password_cannot_be_claimed_through_an_invitation(w: World) -> None:
    invited = w.console.invite(w.owner, w.org.id, w.project.id, w.reader.email, Role.OWNER)
    assert invited.token is not None
    with pytest.raises(PermissionDeniedError, match="set-password"):
        w.console.accept(invited.token, NEW_PASSWORD, CLIENT)
    assert w.console.invitation(invited.token) is not None  # not spent


def test_only_an_owner_invites_lists_and_revokes(w: World) -> None:
    with pytest.raises(PermissionDeniedError):
        w.console.invite(w.reader, w.org.id, None, "x@example.com", Role.READER)
    with pytest.raises(PermissionDeniedError):
        w.console.invitations(w.reader, w.org.id, w.project.id)
    stranger = w.directory.add_user(w.owner.__class__("u-x", "x@example.com", w.clock.at))
    with pytest.raises(NotFoundError):
        w.console.invite(stranger, w.org.id, None, "y@example.com", Role.READER)
    with pytest.raises(NotFoundError):
        w.console.invite(w.owner, w.org.id, "proj_elsewhere", "y@example.com", Role.READER)

    invited = w.console.invite(w.owner, w.org.id, w.project.id, "y@example.com", Role.READER)
    assert [i.id for i in w.console.invitations(w.owner, w.org.id, w.project.id)] == [invited.id]
    assert all(i.token is None for i in w.console.invitations(w.owner, w.org.id, w.project.id))
    assert w.console.invitations(w.owner, w.org.id, None) == []  # the organization's own are apart
    with pytest.raises(PermissionDeniedError):
        w.console.revoke_invitation(w.reader, w.org.id, invited.id)
    w.console.revoke_invitation(w.owner, w.org.id, invited.id)
    assert invited.token is not None and w.console.invitation(invited.token) is None
    with pytest.raises(NotFoundError):
        w.console.revoke_invitation(w.owner, w.org.id, invited.id)


def test_a_new_invitation_of_the_same_email_replaces_the_earlier(w: World) -> None:
    first = w.console.invite(w.owner, w.org.id, None, "bo@example.com", Role.READER)
    second = w.console.invite(w.owner, w.org.id, None, "bo@example.com", Role.OWNER)
    assert first.token is not None and w.console.invitation(first.token) is None
    assert [i.role for i in w.console.invitations(w.owner, w.org.id, None)] == [second.role]


def test_bad_input_is_refused_before_anything_is_written(w: World) -> None:
    with pytest.raises(ValidationError, match="email"):
        w.console.invite(w.owner, w.org.id, None, "not an email", Role.READER)
    with pytest.raises(ValidationError, match="role"):
        w.console.invite(w.owner, w.org.id, None, "a@example.com", "ADMIN")  # type: ignore[arg-type]
    assert w.console.invitation("x" * 5000) is None
    assert w.console.invitations(w.owner, w.org.id, None) == []


def test_the_token_is_stored_only_as_its_digest(w: World) -> None:
    invited = w.console.invite(w.owner, w.org.id, None, "bo@example.com", Role.READER)
    with sqlite3.connect(w.path) as conn:
        held = repr(list(conn.execute("SELECT * FROM console_invitations")))
    assert invited.token is not None and invited.token not in held and invited.id in held


def test_a_deleted_place_cannot_be_joined(w: World) -> None:
    invited = w.console.invite(w.owner, w.org.id, w.project.id, "bo@example.com", Role.READER)
    assert invited.token is not None
    w.directory.delete_project(w.project.id)
    with pytest.raises(NotFoundError):
        w.console.accept(invited.token, NEW_PASSWORD, CLIENT)
