"""Tenancy use cases: users, organizations, projects, members and roles, project API keys, and who may do what.

Roles: READER views and searches; OWNER does everything, including settings, members
and keys. A user's role in a project is their project membership's role; an organization OWNER is also an
OWNER of every project of the organization, and an organization READER a READER of them. A caller with no
role in an organization or project gets NotFoundError, exactly as if it did not exist.

Adding a member by email: a user the platform knows becomes a member at once; an unknown email becomes a pending
invitation, a member only once it is accepted in the console (member_emails.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
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
    new_org_id,
    new_project_id,
    new_project_key,
    normal_email,
)
from mnemo.errors import NotFoundError, PermissionDeniedError, ValidationError
from mnemo.ports.tenancy_store import DirectoryStore, role_of
from mnemo.services.platform.console_accounts.invitations import Invitations
from mnemo.services.platform.tenancy.callers import (
    Bootstrapped,
    CreatedKey,
    KeyDetails,
    OrgDetails,
    PlatformCaller,
    ProjectDetails,
)
from mnemo.services.platform.tenancy.key_auth import KeyAuthenticator, project_role
from mnemo.services.platform.tenancy.member_emails import known_or_invited, known_user
from mnemo.services.platform.tenancy.project_changes import (
    PATCHED,
    parse_role,
    project_changes,
    required_email,
    required_role,
)
from mnemo.services.platform.tenancy.reach import Reached, reached

ORG_NOT_FOUND = "Organization not found."
PROJECT_NOT_FOUND = "Project not found."


def checked_org_name(name: object) -> str:
    """An organization's name as given at its creation or renaming: a non-empty text, without its outer spaces."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("name is required.")
    return name.strip()


class TenancyService:
    """Every public method but `authenticate` and `bootstrap` acts for `user` (the caller), on the organization or
    project its ids name, and checks the user's role there first."""

    def __init__(
        self,
        store: DirectoryStore,
        drop_namespace: Callable[[str], None],
        clock: Callable[[], datetime] = now,
        *,
        invitations: Invitations | None = None,
    ) -> None:
        """`invitations`: the console's pending invitations, which an unknown email added as a member becomes and
        which go with their organization or project; None (a tool that only bootstraps): an unknown email added
        becomes a user and a member at once."""
        self._store = store
        self._drop_namespace = drop_namespace
        self._invitations = invitations
        self._clock = clock
        self._keys = KeyAuthenticator(store, clock)

    # ---- keys ----

    def verified(self, value: str) -> PlatformCaller | None:
        """The caller of a key verified before and unchanged since, else None (mnemo.services.platform.tenancy.
        key_auth)."""
        return self._keys.verified(value)

    def authenticate(self, value: str | None) -> PlatformCaller:
        return self._keys.authenticate(value)

    def keys(self, org_id: str, project_id: str, user: PlatformUser) -> list[KeyDetails]:
        project, _role = self._project_for(org_id, project_id, user, Role.OWNER)
        out = []
        for key in self._store.keys_of_project(project.id):
            owner = self._store.user_by_id(key.user_id)
            out.append(KeyDetails(key, owner.email if owner else None))
        return out

    def create_key(
        self, org_id: str, project_id: str, user: PlatformUser, email: str | None = None, label: str = ""
    ) -> CreatedKey:
        """A key of the project for the member with `email` (the caller when None)."""
        project, _role = self._project_for(org_id, project_id, user, Role.OWNER)
        owner = known_user(self._store, email) if email else user
        key, value = self._new_key(project, owner, label)
        return CreatedKey(key, value, project, owner)

    def revoke_key(self, org_id: str, project_id: str, user: PlatformUser, key_id: str) -> None:
        project, _role = self._project_for(org_id, project_id, user, Role.OWNER)
        if not self._store.revoke_key(project.id, key_id, self._clock()):
            raise NotFoundError("API key not found.")

    # ---- bootstrap ----

    def bootstrap(self, email: str, org_name: str, project_name: str = "Default Project") -> Bootstrapped:
        """A user (created when new), a new organization it owns, its default project, and a key of it."""
        user = self._user(email)
        org = self._new_org(user, org_name)
        project = self._new_project(org, user, project_name, is_default=True)
        _key, value = self._new_key(project, user, "bootstrap")
        return Bootstrapped(user, org, project, value)

    # ---- organizations ----

    def orgs(self, user: PlatformUser) -> list[OrgDetails]:
        return [self._org_details(org, user) for org in self._store.orgs_of(user.id)]

    def reached(self, user: PlatformUser) -> list[Reached]:
        """Every organization the user reaches, as a member or through a project of it (reach.py)."""
        return reached(self._store, user)

    def create_org(self, user: PlatformUser, name: str) -> Organization:
        return self._new_org(user, name)

    def org(self, org_id: str, user: PlatformUser) -> OrgDetails:
        return self._org_details(self._org_for(org_id, user), user)

    def rename_org(self, org_id: str, user: PlatformUser, name: str) -> Organization:
        """An OWNER's act, as every other change of the organization; the name checked as at its creation."""
        org = self._org_for(org_id, user, Role.OWNER)
        renamed = replace(org, name=checked_org_name(name), updated_at=self._clock())
        self._store.save_org(renamed)
        return renamed

    def delete_org(self, org_id: str, user: PlatformUser) -> None:
        org = self._org_for(org_id, user, Role.OWNER)
        for project in self._store.projects_of_org(org.id):
            self._delete_project(project)
        self._store.delete_org(org.id)
        if self._invitations is not None:
            self._invitations.drop(org.id)

    def org_members(self, org_id: str, user: PlatformUser) -> list[Member]:
        return self._store.org_members(self._org_for(org_id, user).id)

    def add_org_member(self, org_id: str, user: PlatformUser, email: Any, role: Any) -> None:
        org = self._org_for(org_id, user, Role.OWNER)
        email, role = required_email(email), required_role(role)
        member = self._known_or_invited(user, org.id, None, email, parse_role(role))
        if member is not None:
            self._store.set_org_member(org.id, member, parse_role(role))

    def update_org_member(self, org_id: str, user: PlatformUser, email: Any, role: Any) -> None:
        org = self._org_for(org_id, user, Role.OWNER)
        email, role = required_email(email), required_role(role)
        member = self._member_user(self._store.org_members(org.id), email)
        self._store.set_org_member(org.id, member, parse_role(role))

    def remove_org_member(self, org_id: str, user: PlatformUser, email: Any) -> None:
        org = self._org_for(org_id, user, Role.OWNER)
        email = required_email(email)
        members = self._store.org_members(org.id)
        member = self._member_user(members, email)
        if role_of(members, member.id) is Role.OWNER and sum(m.role is Role.OWNER for m in members) == 1:
            raise ValidationError("An organization keeps at least one OWNER.")
        self._store.remove_org_member(org.id, member.id)

    # ---- projects ----

    def projects(self, org_id: str, user: PlatformUser) -> list[ProjectDetails]:
        """The organization's projects the user has a role in."""
        org = self._org_for(org_id, user)
        out = []
        for project in self._store.projects_of_org(org.id):
            role = self._project_role(project, user)
            if role is not None:
                out.append(ProjectDetails(project, self._store.project_members(project.id), role))
        return out

    def create_project(self, org_id: str, user: PlatformUser, name: str, description: str = "") -> Project:
        org = self._org_for(org_id, user, Role.OWNER)
        return self._new_project(org, user, name, description)

    def project(self, org_id: str, project_id: str, user: PlatformUser) -> ProjectDetails:
        project, role = self._project_for(org_id, project_id, user)
        return ProjectDetails(project, self._store.project_members(project.id), role)

    def update_project(self, org_id: str, project_id: str, user: PlatformUser, patch: dict[str, Any]) -> ProjectDetails:
        """`patch`: the settings the caller sent (name, description, custom_instructions, custom_categories,
        multilingual, decay, agent_custom_instructions, memory_depth, usecase_setting, version, enable_graph); a null
        clears the texts and custom_categories and changes nothing else."""
        project, role = self._project_for(org_id, project_id, user, Role.OWNER)
        changes = project_changes(patch)
        if "name" in changes and not str(changes["name"]).strip():
            raise ValidationError("name must not be empty.")
        if not changes and "enable_graph" not in patch:
            raise ValidationError(f"Give at least one of: {', '.join(PATCHED)}, custom_categories, enable_graph.")
        updated = project.changed(**changes, updated_at=self._clock())
        self._store.save_project(updated)
        return ProjectDetails(updated, self._store.project_members(updated.id), role)

    def delete_project(self, org_id: str, project_id: str, user: PlatformUser) -> None:
        project, _role = self._project_for(org_id, project_id, user, Role.OWNER)
        self._delete_project(project)

    def project_members(self, org_id: str, project_id: str, user: PlatformUser) -> list[Member]:
        project, _role = self._project_for(org_id, project_id, user)
        return self._store.project_members(project.id)

    def add_project_member(self, org_id: str, project_id: str, user: PlatformUser, email: Any, role: Any) -> None:
        """The body is checked first here (the interface's three outcomes: done, not allowed, not found)."""
        email, role = required_email(email), required_role(role)
        project, _role = self._project_for(org_id, project_id, user, Role.OWNER)
        checked = parse_role(role)
        member = self._known_or_invited(user, org_id, project.id, email, checked)
        if member is not None:
            self._store.set_project_member(project.id, member, checked)

    def update_project_member(self, org_id: str, project_id: str, user: PlatformUser, email: Any, role: Any) -> None:
        project, _role = self._project_for(org_id, project_id, user, Role.OWNER)
        email, role = required_email(email), required_role(role)
        member = self._member_user(self._store.project_members(project.id), email)
        self._store.set_project_member(project.id, member, parse_role(role))

    def remove_project_member(self, org_id: str, project_id: str, user: PlatformUser, email: str) -> None:
        project, _role = self._project_for(org_id, project_id, user, Role.OWNER)
        if not email:
            raise ValidationError("email is required.")
        member = self._member_user(self._store.project_members(project.id), email)
        self._store.remove_project_member(project.id, member.id)

    def authorized_project(self, org_id: str, project_id: str, user: PlatformUser, needed: Role) -> Project:
        """The project, for a caller with at least the `needed` role in it (404 for anyone without a role; 403
        for a READER asking for an OWNER's action)."""
        project, _role = self._project_for(org_id, project_id, user, needed)
        return project

    def save_project(self, project: Project) -> None:
        self._store.save_project(project)

    # ---- internals ----

    def _user(self, email: str) -> PlatformUser:
        """The user with this email, created when new (platform users are known by email only)."""
        if not isinstance(email, str) or not is_email(email):
            raise ValidationError("A valid email is required.")
        address = normal_email(email)
        existing = self._store.user_by_email(address)
        if existing is not None:
            return existing
        return self._store.add_user(PlatformUser(new_id(), address, self._clock()))

    def _known_or_invited(
        self, inviter: PlatformUser, org_id: str, project_id: str | None, email: str, role: Role
    ) -> PlatformUser | None:
        """The user to make a member at once, or None when the email was invited (see member_emails)."""
        if self._invitations is None:
            return self._user(email)
        return known_or_invited(self._store, self._invitations, inviter, (org_id, project_id), email, role)

    def _new_key(self, project: Project, user: PlatformUser, label: str = "") -> tuple[ProjectKey, str]:
        if self._project_role(project, user) is None:
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
        self._store.add_key(key)
        return key, value

    def _new_org(self, owner: PlatformUser, name: str) -> Organization:
        moment = self._clock()
        org = Organization(new_org_id(), checked_org_name(name), moment, moment)
        self._store.add_org(org, owner)
        return org

    def _new_project(
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
        self._store.add_project(project, owner)
        return project

    def _org_details(self, org: Organization, user: PlatformUser) -> OrgDetails:
        members = self._store.org_members(org.id)
        return OrgDetails(org, members, role_of(members, user.id))

    def _org_for(self, org_id: str, user: PlatformUser, needed: Role = Role.READER) -> Organization:
        org = self._store.get_org(org_id)
        role = None if org is None else role_of(self._store.org_members(org.id), user.id)
        if org is None or role is None:
            raise NotFoundError(ORG_NOT_FOUND)
        if not role.allows(needed):
            raise PermissionDeniedError("This needs the OWNER role in the organization.")
        return org

    def _project_role(self, project: Project, user: PlatformUser) -> Role | None:
        return project_role(self._store, project, user)

    def _project_for(
        self, org_id: str, project_id: str, user: PlatformUser, needed: Role = Role.READER
    ) -> tuple[Project, Role]:
        project = self._store.get_project(project_id)
        role = None if project is None or project.org_id != org_id else self._project_role(project, user)
        if project is None or role is None:
            raise NotFoundError(PROJECT_NOT_FOUND)
        if not role.allows(needed):
            raise PermissionDeniedError("This needs the OWNER role in the project.")
        return project, role

    def _delete_project(self, project: Project) -> None:
        """Irreversible: the project's memories, history, events, exports, feedback, members and keys. The memories
        go first (a delete interrupted then leaves the project whole, to be deleted again), and once more last:
        an add still running in a worker may have stored some in between (its event is gone by then, so it writes
        nothing else back: AddJobs)."""
        self._drop_namespace(project.id)
        self._store.delete_project(project.id)
        self._drop_namespace(project.id)
        if self._invitations is not None:
            self._invitations.drop(project.org_id, project.id)

    def _member_user(self, members: list[Member], email: str) -> PlatformUser:
        address = normal_email(email) if isinstance(email, str) else ""
        for member in members:
            if member.user.email == address:
                return member.user
        raise NotFoundError("No member with this email.")
