"""The record stores of platform tenancy, one protocol per kind of caller: the directory (users, organizations,
projects, members, project keys), a project's events, its other records (exports, feedback, counters), its
counters per day (mnemo.ports.usage_counters), and the entities created explicitly. `TenancyStore` is all five:
what an adapter implements (one table or file holds them), and what the contract suite checks.

Every per-project read and write takes the project id and is answered from that project's rows only: a
record of another project is never returned, whatever id is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from mnemo.domain.erasure import Erasure
from mnemo.domain.tenancy import (
    Feedback,
    Member,
    MemoryExport,
    Organization,
    PlatformEvent,
    PlatformUser,
    Project,
    ProjectEntity,
    ProjectKey,
    Role,
)
from mnemo.ports.usage_counters import DailyCounterStore


class DirectoryStore(Protocol):
    """Users, organizations, projects, their members, and project keys."""

    # ---- users ----
    def user_by_email(self, email: str) -> PlatformUser | None: ...

    def user_by_id(self, user_id: str) -> PlatformUser | None: ...

    def add_user(self, user: PlatformUser) -> PlatformUser:
        """Store a new user, or return the one that already has this email."""
        ...

    # ---- organizations ----
    def add_org(self, org: Organization, owner: PlatformUser) -> None:
        """Store the organization with `owner` as its first OWNER."""
        ...

    def get_org(self, org_id: str) -> Organization | None: ...

    def save_org(self, org: Organization) -> None:
        """Overwrite a stored organization (its name and times); one deleted meanwhile stays deleted."""
        ...

    def orgs_of(self, user_id: str) -> list[Organization]:
        """The organizations the user is a member of, oldest first."""
        ...

    def delete_org(self, org_id: str) -> None:
        """The organization and its members (its projects are deleted one by one before)."""
        ...

    def org_members(self, org_id: str) -> list[Member]: ...

    def set_org_member(self, org_id: str, user: PlatformUser, role: Role) -> None: ...

    def remove_org_member(self, org_id: str, user_id: str) -> bool: ...

    # ---- projects ----
    def add_project(self, project: Project, owner: PlatformUser) -> None: ...

    def get_project(self, project_id: str) -> Project | None: ...

    def projects_of_org(self, org_id: str) -> list[Project]: ...

    def projects_of_member(self, user_id: str) -> list[Project]:
        """The projects the user is a member of directly (not through their organization), oldest first."""
        ...

    def save_project(self, project: Project) -> None: ...

    def delete_project(self, project_id: str) -> None:
        """The project and everything of it here: members, keys, events, exports, feedback, counters."""
        ...

    def project_members(self, project_id: str) -> list[Member]: ...

    def set_project_member(self, project_id: str, user: PlatformUser, role: Role) -> None: ...

    def remove_project_member(self, project_id: str, user_id: str) -> bool: ...

    # ---- project keys ----
    def add_key(self, key: ProjectKey) -> None: ...

    def key_by_hash(self, key_hash: str) -> ProjectKey | None:
        """The unrevoked key with this hash."""
        ...

    def keys_of_project(self, project_id: str) -> list[ProjectKey]: ...

    def revoke_key(self, project_id: str, key_id: str, at: datetime) -> bool:
        """Revoke a key of this project; False when the project has no such unrevoked key."""
        ...

    def touch_key(self, key_id: str, at: datetime) -> None: ...

    def auth_epoch(self) -> int | None:
        """A counter that moves with every change that could change what a key authenticates as (a key revoked, a
        membership ended, a project changed…), or None where the store keeps none (then nothing is cached)."""
        ...


class EventStore(Protocol):
    """A project's events: asynchronous adds (the job itself) and synchronous operations, newest first."""

    def save_event(self, event: PlatformEvent) -> None:
        """Insert or overwrite the event."""
        ...

    def update_event(self, event: PlatformEvent) -> bool:
        """Overwrite a stored event; False, writing nothing, when it is not stored (its project was deleted
        meanwhile: a worker finishing its add must not bring it back) or when its stored status forbids the change.
        The status rule, checked in the same write: an unfinished event (PENDING, RUNNING) may take any status; an
        ended one (SUCCEEDED, FAILED, PARTIALLY_COMPLETED, CANCELLED) only its own again (with more results), so a
        cancelled or finished job never goes back to RUNNING or PENDING, nor to another end."""
        ...

    def get_event(self, project_id: str, event_id: str) -> PlatformEvent | None: ...

    def events_of_project(self, project_id: str, limit: int, offset: int) -> list[PlatformEvent]:
        """Newest first."""
        ...

    def count_events(self, project_id: str, event_type: str | None = None) -> int: ...

    def unfinished_events(self) -> list[PlatformEvent]:
        """PENDING and RUNNING events of every project, oldest first (to resume after a restart)."""
        ...

    def erase_from_events(self, project_id: str, erasure: Erasure) -> int:
        """Every event of the project whose results name an erased memory, rewritten without the memory's texts
        (`domain.erasure.scrubbed_event`: its results and its payload); how many. One pass over the project's
        events, whatever the number of memories erased."""
        ...


class ProjectRecordStore(Protocol):
    """A project's exports, memory feedback and call counters."""

    def save_export(self, export: MemoryExport) -> None: ...

    def get_export(self, project_id: str, export_id: str) -> MemoryExport | None: ...

    def latest_export(self, project_id: str, filters: dict[str, Any] | None = None) -> MemoryExport | None:
        """The project's newest export, or its newest made with exactly these `filters`."""
        ...

    def erase_from_exports(self, project_id: str, erasure: Erasure) -> int:
        """Every export of the project rewritten without the erased memories (`domain.erasure.scrubbed_export`);
        how many changed."""
        ...

    def save_feedback(self, feedback: Feedback) -> None: ...

    def get_feedback(self, project_id: str, memory_id: str) -> Feedback | None: ...

    def bump_counter(self, project_id: str, name: str, by: int = 1) -> None: ...

    def counters(self, project_id: str) -> dict[str, int]: ...


class EntityStore(Protocol):
    """The users, agents, apps and runs a project created explicitly (with a name and metadata)."""

    def add_entity(self, entity: ProjectEntity) -> bool:
        """Store a new entity; False (and nothing written) when the project already has one of that type and id."""
        ...

    def entities_of_project(self, project_id: str) -> list[ProjectEntity]:
        """Ordered by type, then id."""
        ...

    def delete_entity(self, project_id: str, entity_type: str, entity_id: str) -> bool: ...


class TenancyStore(DirectoryStore, EventStore, ProjectRecordStore, DailyCounterStore, EntityStore, Protocol):
    """Every tenancy record: what an adapter implements."""


def role_of(members: Sequence[Member], user_id: str) -> Role | None:
    for member in members:
        if member.user.id == user_id:
            return member.role
    return None
