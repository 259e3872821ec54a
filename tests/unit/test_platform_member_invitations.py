"""Adding a member by email on the platform API: a known user is a member at once; an unknown email becomes a
pending invitation (not a user, not a member) until it is accepted in the console, then a member with the role it
was invited with. Deleting a project or an organization deletes its invitations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.domain.tenancy import Role
from mnemo.errors import NotFoundError, ValidationError
from mnemo.ports.tenancy_store import role_of
from mnemo.services.platform.tenancy.service import TenancyService
from tests.unit.console_support import CLIENT, World, world

NEW_PASSWORD = "a password of her own"


@pytest.fixture
def w(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as built:
        yield built


def tenancy(w: World) -> TenancyService:
    return TenancyService(w.directory, lambda _namespace: None, w.clock, invitations=w.console.invites)


def test_an_unknown_email_added_to_a_project_is_invited_then_a_member_once_accepted(w: World) -> None:
    service = tenancy(w)
    service.add_project_member(w.org.id, w.project.id, w.owner, "Ana@Example.com", "owner")

    assert w.directory.user_by_email("ana@example.com") is None
    assert [m.user.email for m in service.project_members(w.org.id, w.project.id, w.owner)] == [w.owner.email]
    (pending,) = w.console.invitations(w.owner, w.org.id, w.project.id)
    assert (pending.email, pending.role, pending.invited_by) == ("ana@example.com", Role.OWNER, w.owner.id)
    with pytest.raises(ValidationError, match="not a member"):
        service.create_key(w.org.id, w.project.id, w.owner, "ana@example.com")

    # the one-time link is the console's: an OWNER invites there and is shown it
    invited = w.console.invite(w.owner, w.org.id, w.project.id, "ana@example.com", Role.OWNER)
    assert invited.token is not None
    ana = w.console.accept(invited.token, NEW_PASSWORD, CLIENT).user

    assert role_of(service.project_members(w.org.id, w.project.id, w.owner), ana.id) is Role.OWNER
    assert service.create_key(w.org.id, w.project.id, w.owner, "ana@example.com").owner == ana


def test_an_unknown_email_added_to_an_organization_is_invited_with_its_role(w: World) -> None:
    service = tenancy(w)
    service.add_org_member(w.org.id, w.owner, "bo@example.com", "READER")

    assert {m.user.email for m in service.org_members(w.org.id, w.owner)} == {w.owner.email, w.reader.email}
    (pending,) = w.console.invitations(w.owner, w.org.id, None)
    assert (pending.email, pending.role) == ("bo@example.com", Role.READER)


def test_a_known_user_is_added_at_once(w: World) -> None:
    service = tenancy(w)
    service.add_project_member(w.org.id, w.project.id, w.owner, w.reader.email.upper(), "OWNER")

    assert role_of(w.directory.project_members(w.project.id), w.reader.id) is Role.OWNER
    assert w.console.invitations(w.owner, w.org.id, w.project.id) == []


def test_adding_checks_the_email_and_the_callers_role_first(w: World) -> None:
    service = tenancy(w)
    with pytest.raises(ValidationError, match="valid email"):
        service.add_org_member(w.org.id, w.owner, "not an email", "READER")
    with pytest.raises(ValidationError, match="READER or OWNER"):
        service.add_project_member(w.org.id, w.project.id, w.owner, "x@example.com", "ADMIN")
    with pytest.raises(NotFoundError):
        service.add_project_member(w.org.id, "proj_nope", w.owner, "x@example.com", "READER")
    assert w.console.invitations(w.owner, w.org.id, None) == []
    assert w.console.invitations(w.owner, w.org.id, w.project.id) == []


def test_deleting_a_project_or_an_organization_deletes_its_invitations(w: World) -> None:
    service = tenancy(w)
    second = service.create_project(w.org.id, w.owner, "Second")
    service.add_project_member(w.org.id, w.project.id, w.owner, "p1@example.com", "READER")
    service.add_project_member(w.org.id, second.id, w.owner, "p2@example.com", "READER")
    service.add_org_member(w.org.id, w.owner, "org@example.com", "READER")

    service.delete_project(w.org.id, w.project.id, w.owner)
    assert [i.email for i in w.store.invitations_of(w.org.id)] == ["p2@example.com", "org@example.com"]

    service.delete_org(w.org.id, w.owner)
    assert w.store.invitations_of(w.org.id) == []


def test_without_invitations_an_unknown_email_becomes_a_member_at_once(w: World) -> None:
    """A tool that only bootstraps tenants (no console) keeps the earlier behaviour."""
    service = TenancyService(w.directory, lambda _namespace: None, w.clock)
    service.add_org_member(w.org.id, w.owner, "cy@example.com", "READER")
    assert "cy@example.com" in {m.user.email for m in service.org_members(w.org.id, w.owner)}
