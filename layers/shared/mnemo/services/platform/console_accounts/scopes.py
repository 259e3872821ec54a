"""Where an invitation leads: an organization, or one of its projects, and the OWNER role the inviter must hold
there (an organization OWNER is an OWNER of its projects). As the platform's routes do, a place the user has no
role in is not found, whatever it holds."""

from __future__ import annotations

from mnemo.domain.tenancy import PlatformUser, Role
from mnemo.errors import NotFoundError, PermissionDeniedError
from mnemo.ports.tenancy_store import DirectoryStore, role_of
from mnemo.services.platform.tenancy.key_auth import project_role

NOT_FOUND = "Organization or project not found."
NOT_OWNER = "Only an OWNER may manage invitations here."


def exists(directory: DirectoryStore, org_id: str, project_id: str | None) -> bool:
    if directory.get_org(org_id) is None:
        return False
    if project_id is None:
        return True
    project = directory.get_project(project_id)
    return project is not None and project.org_id == org_id


def role_in(directory: DirectoryStore, user: PlatformUser, org_id: str, project_id: str | None) -> Role | None:
    """The user's role in the organization (`project_id` None) or the project; None when none or not there."""
    if not exists(directory, org_id, project_id):
        return None
    if project_id is None:
        return role_of(directory.org_members(org_id), user.id)
    project = directory.get_project(project_id)
    return None if project is None else project_role(directory, project, user)


def require_owner(directory: DirectoryStore, user: PlatformUser, org_id: str, project_id: str | None) -> None:
    role = role_in(directory, user, org_id, project_id)
    if role is None:
        raise NotFoundError(NOT_FOUND)
    if role is not Role.OWNER:
        raise PermissionDeniedError(NOT_OWNER)


def add_member(directory: DirectoryStore, user: PlatformUser, org_id: str, project_id: str | None, role: Role) -> None:
    """Make the user a member with `role` (NotFoundError when the place is gone)."""
    if not exists(directory, org_id, project_id):
        raise NotFoundError(NOT_FOUND)
    if project_id is None:
        directory.set_org_member(org_id, user, role)
    else:
        directory.set_project_member(project_id, user, role)
