"""Tenancy use cases: users, organizations, projects, members and roles, project API keys, and who may do what.

Roles (service-interface.md): READER views and searches; OWNER does everything, including settings, members
and keys. A user's role in a project is their project membership's role; an organization OWNER is also an
OWNER of every project of the organization, and an organization READER a READER of them. A caller with no
role in an organization or project gets NotFoundError, exactly as if it did not exist.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from mnemo.domain.api_keys import key_digest
from mnemo.domain.memory import new_id, now
from mnemo.domain.tenancy import (
    SHOWN_KEY_PREFIX_LENGTH,
    Member,
    Organization,
    PlatformUser,
    Project,
    ProjectKey,
    Role,
    is_email,
    is_project_key,
    new_org_id,
    new_project_id,
    new_project_key,
    normal_email,
)
from mnemo.errors import AuthenticationError, NotFoundError, PermissionDeniedError, ValidationError
from mnemo.ports.tenancy_store import TenancyStore, role_of

log = logging.getLogger("mnemo.platform")

INVALID_KEY = "Invalid API key. You can find your API key on the dashboard's API keys page."
TOUCH_INTERVAL = timedelta(seconds=60)
ORG_NOT_FOUND = "Organization not found."
PROJECT_NOT_FOUND = "Project not found."


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


class TenancyService:
    def __init__(
        self,
        store: TenancyStore,
        drop_namespace: Callable[[str], None],
        clock: Callable[[], datetime] = now,
    ) -> None:
        self.store = store
        self._drop_namespace = drop_namespace
        self._clock = clock

    # ---- users ----

    def user(self, email: str) -> PlatformUser:
        """The user with this email, created when new (platform users are known by email only)."""
        if not isinstance(email, str) or not is_email(email):
            raise ValidationError("A valid email is required.")
        address = normal_email(email)
        existing = self.store.user_by_email(address)
        if existing is not None:
            return existing
        return self.store.add_user(PlatformUser(new_id(), address, self._clock()))

    # ---- keys ----

    def authenticate(self, value: str | None) -> PlatformCaller:
        if not value or not is_project_key(value):
            raise AuthenticationError(INVALID_KEY)
        key = self.store.key_by_hash(key_digest(value))
        if key is None:
            raise AuthenticationError(INVALID_KEY)
        user = self.store.user_by_id(key.user_id)
        project = self.store.get_project(key.project_id)
        if user is None or project is None:
            raise AuthenticationError(INVALID_KEY)
        role = self.project_role(project, user)
        if role is None:  # the key's user left the project: the key no longer opens it
            raise AuthenticationError(INVALID_KEY)
        moment = self._clock()
        if key.last_used_at is None or moment - key.last_used_at >= TOUCH_INTERVAL:
            self.store.touch_key(key.id, moment)
        return PlatformCaller(user, project, role, key.id)

    def create_key(self, project: Project, user: PlatformUser, label: str = "") -> tuple[ProjectKey, str]:
        if self.project_role(project, user) is None:
            raise ValidationError(f"{user.email} is not a member of this project.")
        value = new_project_key()
        key = ProjectKey(
            id=new_id(),
            project_id=project.id,
            user_id=user.id,
            label=label.strip(),
            key_prefix=value[:SHOWN_KEY_PREFIX_LENGTH],
            key_hash=key_digest(value),
            created_at=self._clock(),
        )
        self.store.add_key(key)
        return key, value

    def revoke_key(self, project: Project, key_id: str) -> None:
        if not self.store.revoke_key(project.id, key_id, self._clock()):
            raise NotFoundError("API key not found.")

    # ---- bootstrap ----

    def bootstrap(self, email: str, org_name: str, project_name: str = "Default Project") -> Bootstrapped:
        user = self.user(email)
        org = self.create_org(user, org_name)
        project = self.create_project(org, user, project_name, is_default=True)
        _key, value = self.create_key(project, user, "bootstrap")
        return Bootstrapped(user, org, project, value)

    # ---- organizations ----

    def create_org(self, owner: PlatformUser, name: str) -> Organization:
        if not isinstance(name, str) or not name.strip():
            raise ValidationError("name is required.")
        moment = self._clock()
        org = Organization(new_org_id(), name.strip(), moment, moment)
        self.store.add_org(org, owner)
        return org

    def org_role(self, org: Organization, user: PlatformUser) -> Role | None:
        return role_of(self.store.org_members(org.id), user.id)

    def org_for(self, org_id: str, user: PlatformUser, needed: Role = Role.READER) -> Organization:
        org = self.store.get_org(org_id)
        role = None if org is None else self.org_role(org, user)
        if org is None or role is None:
            raise NotFoundError(ORG_NOT_FOUND)
        if not role.allows(needed):
            raise PermissionDeniedError("This needs the OWNER role in the organization.")
        return org

    def orgs_of(self, user: PlatformUser) -> list[Organization]:
        return self.store.orgs_of(user.id)

    def delete_org(self, org: Organization) -> None:
        for project in self.store.projects_of_org(org.id):
            self.delete_project(project)
        self.store.delete_org(org.id)

    def set_org_member(self, org: Organization, email: str, role: Any) -> Member:
        user = self.user(email)
        self.store.set_org_member(org.id, user, parse_role(role))
        return Member(org.id, user, parse_role(role))

    def update_org_member(self, org: Organization, email: str, role: Any) -> None:
        user = self._member_user(self.store.org_members(org.id), email)
        self.store.set_org_member(org.id, user, parse_role(role))

    def remove_org_member(self, org: Organization, email: str) -> None:
        members = self.store.org_members(org.id)
        user = self._member_user(members, email)
        if role_of(members, user.id) is Role.OWNER and sum(m.role is Role.OWNER for m in members) == 1:
            raise ValidationError("An organization keeps at least one OWNER.")
        self.store.remove_org_member(org.id, user.id)

    # ---- projects ----

    def create_project(
        self, org: Organization, owner: PlatformUser, name: str, description: str = "", *, is_default: bool = False
    ) -> Project:
        if not isinstance(name, str) or not name.strip():
            raise ValidationError("name is required.")
        moment = self._clock()
        project = Project(
            id=new_project_id(),
            org_id=org.id,
            name=name.strip(),
            description=description or "",
            created_at=moment,
            updated_at=moment,
            is_default=is_default,
        )
        self.store.add_project(project, owner)
        return project

    def project_role(self, project: Project, user: PlatformUser) -> Role | None:
        direct = role_of(self.store.project_members(project.id), user.id)
        org = role_of(self.store.org_members(project.org_id), user.id)
        if Role.OWNER in (direct, org):
            return Role.OWNER
        return direct or org

    def project_for(
        self, org_id: str, project_id: str, user: PlatformUser, needed: Role = Role.READER
    ) -> tuple[Project, Role]:
        project = self.store.get_project(project_id)
        role = None if project is None or project.org_id != org_id else self.project_role(project, user)
        if project is None or role is None:
            raise NotFoundError(PROJECT_NOT_FOUND)
        if not role.allows(needed):
            raise PermissionDeniedError("This needs the OWNER role in the project.")
        return project, role

    def projects_visible(self, org: Organization, user: PlatformUser) -> list[Project]:
        return [p for p in self.store.projects_of_org(org.id) if self.project_role(p, user) is not None]

    def update_project(self, project: Project, changes: dict[str, Any]) -> Project:
        updated = project.changed(**changes, updated_at=self._clock())
        self.store.save_project(updated)
        return updated

    def delete_project(self, project: Project) -> None:
        """Irreversible: the project's memories, history, events, exports, feedback, members and keys. The memories
        go first (a delete interrupted then leaves the project whole, to be deleted again), and once more last:
        an add still running in a worker may have stored some in between (its event is gone by then, so it writes
        nothing else back: ProjectMemories)."""
        self._drop_namespace(project.id)
        self.store.delete_project(project.id)
        self._drop_namespace(project.id)

    def add_project_member(self, project: Project, email: str, role: Any) -> None:
        checked = parse_role(role)
        self.store.set_project_member(project.id, self.user(email), checked)

    def update_project_member(self, project: Project, email: str, role: Any) -> None:
        user = self._member_user(self.store.project_members(project.id), email)
        self.store.set_project_member(project.id, user, parse_role(role))

    def remove_project_member(self, project: Project, email: str) -> None:
        user = self._member_user(self.store.project_members(project.id), email)
        self.store.remove_project_member(project.id, user.id)

    def _member_user(self, members: list[Member], email: str) -> PlatformUser:
        address = normal_email(email) if isinstance(email, str) else ""
        for member in members:
            if member.user.email == address:
                return member.user
        raise NotFoundError("No member with this email.")


def parse_role(role: Any) -> Role:
    try:
        return Role(str(role).upper())
    except ValueError:
        raise ValidationError("role must be READER or OWNER.") from None
