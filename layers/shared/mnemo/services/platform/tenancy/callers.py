"""The values of tenancy: the caller a project key authenticates (its project and role), and what the organization,
project and key routes answer with."""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.domain.tenancy import (
    Member,
    Organization,
    PlatformUser,
    Project,
    ProjectKey,
    Role,
)
from mnemo.errors import PermissionDeniedError


@dataclass(frozen=True, slots=True)
class PlatformCaller:
    """Who calls the platform API: the key's user, and the project (and its organization) the key targets."""

    user: PlatformUser
    project: Project
    role: Role
    key_id: str

    @property
    def project_id(self) -> str:
        return self.project.id

    def require(self, needed: Role) -> None:
        if not self.role.allows(needed):
            raise PermissionDeniedError("This needs the OWNER role in the project; your role is READER.")


@dataclass(frozen=True, slots=True)
class Bootstrapped:
    user: PlatformUser
    org: Organization
    project: Project
    api_key: str


@dataclass(frozen=True, slots=True)
class OrgDetails:
    """An organization as a member sees it: its members and the member's role."""

    org: Organization
    members: list[Member]
    role: Role | None


@dataclass(frozen=True, slots=True)
class ProjectDetails:
    """A project as a member sees it: its members and the member's role."""

    project: Project
    members: list[Member]
    role: Role


@dataclass(frozen=True, slots=True)
class KeyDetails:
    key: ProjectKey
    owner_email: str | None


@dataclass(frozen=True, slots=True)
class CreatedKey:
    """A new project key; `value` is shown this once."""

    key: ProjectKey
    value: str
    project: Project
    owner: PlatformUser
