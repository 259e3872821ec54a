"""Renaming an organization (TenancyService.rename_org): an OWNER's act, as every other change of the organization;
the name checked as at its creation (required, outer spaces dropped); its time of change moved; a READER refused
and a stranger told it does not exist."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from mnemo.domain.tenancy import PlatformUser
from mnemo.errors import NotFoundError, PermissionDeniedError, ValidationError
from mnemo.services.platform.tenancy.service import TenancyService
from tests.unit.console_support import T0, World, world


@pytest.fixture
def w(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as built:
        yield built


def tenancy(w: World) -> TenancyService:
    return TenancyService(w.directory, lambda _namespace: None, w.clock)


def test_given_an_owner_when_renaming_the_organization_then_the_store_holds_the_new_name(w: World) -> None:
    w.clock.advance(hours=1)
    renamed = tenancy(w).rename_org(w.org.id, w.owner, "  Acme Labs  ")
    stored = w.directory.get_org(w.org.id)
    assert renamed.name == "Acme Labs" and stored == renamed
    assert stored.created_at == w.org.created_at and stored.updated_at == T0 + timedelta(hours=1)
    assert [d.org.name for d in tenancy(w).orgs(w.reader)] == ["Acme Labs"]  # every member sees it


@pytest.mark.parametrize("name", ["", "   ", None, 42])
def test_given_no_name_when_renaming_then_it_is_refused_as_at_creation(w: World, name: object) -> None:
    with pytest.raises(ValidationError, match="name is required"):
        tenancy(w).rename_org(w.org.id, w.owner, name)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="name is required"):
        tenancy(w).create_org(w.owner, name)  # type: ignore[arg-type]
    assert w.directory.get_org(w.org.id) == w.org


def test_given_a_reader_when_renaming_then_it_is_refused_and_the_name_stays(w: World) -> None:
    with pytest.raises(PermissionDeniedError, match="OWNER"):
        tenancy(w).rename_org(w.org.id, w.reader, "Taken over")
    assert w.directory.get_org(w.org.id) == w.org


def test_given_a_stranger_or_an_unknown_org_when_renaming_then_not_found(w: World) -> None:
    stranger = w.directory.add_user(PlatformUser("u-stranger", "stranger@example.com", T0))
    with pytest.raises(NotFoundError):
        tenancy(w).rename_org(w.org.id, stranger, "Mine now")
    with pytest.raises(NotFoundError):
        tenancy(w).rename_org("org_unknown", w.owner, "Nowhere")
    assert w.directory.get_org(w.org.id) == w.org
