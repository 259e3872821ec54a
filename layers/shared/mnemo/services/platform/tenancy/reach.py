"""What a person can reach, organization by organization: the organizations they are a member of with the projects
of each they have a role in, and the organizations they belong to only through some of their projects (a project's
member need not be its organization's) with those projects alone.

An organization reached only through a project shows its name and no role, and none of its members: the person sees
the projects they were given, not the organization. A function of the directory store, beside TenancyService (whose
other reads each check one organization or project), which answers it as `reached`."""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.domain.tenancy import Organization, PlatformUser, Project
from mnemo.ports.tenancy_store import DirectoryStore, role_of
from mnemo.services.platform.tenancy.callers import OrgDetails, ProjectDetails
from mnemo.services.platform.tenancy.key_auth import project_role


@dataclass(frozen=True, slots=True)
class Reached:
    """One organization as the person sees it, and the projects of it they have a role in, oldest first."""

    org: OrgDetails
    projects: list[ProjectDetails]


def reached(store: DirectoryStore, user: PlatformUser) -> list[Reached]:
    """The organizations the user is a member of (oldest first), then those reached only through a project."""
    orgs = store.orgs_of(user.id)
    member_of = {org.id for org in orgs}
    outside: dict[str, list[Project]] = {}
    for project in store.projects_of_member(user.id):
        if project.org_id not in member_of:
            outside.setdefault(project.org_id, []).append(project)
    found = [_as_member(store, org, user) for org in orgs]
    for org_id, projects in outside.items():
        org = store.get_org(org_id)
        seen = _with_roles(store, projects, user) if org is not None else []
        if org is not None and seen:
            found.append(Reached(OrgDetails(org, [], None), seen))
    return found


def _as_member(store: DirectoryStore, org: Organization, user: PlatformUser) -> Reached:
    members = store.org_members(org.id)
    details = OrgDetails(org, members, role_of(members, user.id))
    return Reached(details, _with_roles(store, store.projects_of_org(org.id), user))


def _with_roles(store: DirectoryStore, projects: list[Project], user: PlatformUser) -> list[ProjectDetails]:
    """The projects the user has a role in, each with its members and that role."""
    out = []
    for project in projects:
        role = project_role(store, project, user)
        if role is not None:
            out.append(ProjectDetails(project, store.project_members(project.id), role))
    return out
