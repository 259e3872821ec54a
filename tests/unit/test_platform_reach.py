"""What a person reaches (TenancyService.reached, reach.py): the organizations they are a member of with the projects
of each they have a role in, then the organizations they reach only through a project of theirs, with no role, no
members shown, and only the projects they were given."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.domain.tenancy import Organization, PlatformUser, Project, Role
from mnemo.services.platform.tenancy.service import TenancyService
from tests.unit.console_support import T0, World, world


@pytest.fixture
def w(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as built:
        yield built


def tenancy(w: World) -> TenancyService:
    return TenancyService(w.directory, lambda _namespace: None, w.clock)


def seen(service: TenancyService, user: PlatformUser) -> list[tuple[str, Role | None, int, list[tuple[str, Role]]]]:
    return [
        (r.org.org.name, r.org.role, len(r.org.members), [(p.project.name, p.role) for p in r.projects])
        for r in service.reached(user)
    ]


def other_org(w: World) -> tuple[Organization, Project, Project]:
    """Globex, which the world's owner also owns, with two projects."""
    globex = Organization("org_2", "Globex", T0, T0)
    w.directory.add_org(globex, w.owner)
    shared = Project(id="proj_2", org_id=globex.id, name="Shared", created_at=T0, updated_at=T0)
    hidden = Project(id="proj_3", org_id=globex.id, name="Hidden", created_at=T0, updated_at=T0)
    w.directory.add_project(shared, w.owner)
    w.directory.add_project(hidden, w.owner)
    return globex, shared, hidden


def test_given_members_of_organizations_then_each_organization_comes_with_the_projects_they_see(w: World) -> None:
    other_org(w)
    assert seen(tenancy(w), w.owner) == [
        ("Acme", Role.OWNER, 2, [("P", Role.OWNER)]),
        ("Globex", Role.OWNER, 1, [("Shared", Role.OWNER), ("Hidden", Role.OWNER)]),
    ]
    assert seen(tenancy(w), w.reader) == [("Acme", Role.READER, 2, [("P", Role.READER)])]


def test_given_a_project_only_member_then_its_organization_shows_that_project_alone_without_a_role(w: World) -> None:
    globex, shared, _hidden = other_org(w)
    w.directory.set_project_member(shared.id, w.reader, Role.READER)
    assert seen(tenancy(w), w.reader) == [
        ("Acme", Role.READER, 2, [("P", Role.READER)]),
        ("Globex", None, 0, [("Shared", Role.READER)]),  # no role there, none of its members
    ]
    assert tenancy(w).project(globex.id, shared.id, w.reader).role is Role.READER  # where its link leads


def test_given_a_member_of_both_then_the_organization_is_listed_once_as_a_member(w: World) -> None:
    _globex, shared, _hidden = other_org(w)
    w.directory.set_project_member(w.project.id, w.reader, Role.OWNER)  # also a direct member in Acme
    w.directory.set_project_member(shared.id, w.reader, Role.READER)
    assert [name for name, *_ in seen(tenancy(w), w.reader)] == ["Acme", "Globex"]
    assert seen(tenancy(w), w.reader)[0] == ("Acme", Role.READER, 2, [("P", Role.OWNER)])


def test_given_a_removed_membership_or_a_deleted_project_then_nothing_of_it_is_reached(w: World) -> None:
    _globex, shared, hidden = other_org(w)
    w.directory.set_project_member(shared.id, w.reader, Role.READER)
    w.directory.set_project_member(hidden.id, w.reader, Role.READER)
    w.directory.remove_project_member(shared.id, w.reader.id)
    assert seen(tenancy(w), w.reader)[1:] == [("Globex", None, 0, [("Hidden", Role.READER)])]
    tenancy(w).delete_project("org_2", hidden.id, w.owner)
    assert [name for name, *_ in seen(tenancy(w), w.reader)] == ["Acme"]
