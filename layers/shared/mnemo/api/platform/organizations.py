"""Organizations, projects, their members, and project API keys (/api/v1/orgs/...).

The caller is the user of the `Token` key; which organization or project a route acts on is in its path.
A caller who is not a member gets 404 (the organization or project is not theirs to see); a READER asking
for an OWNER action gets 403.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import Field

from mnemo.api.limits import MAX_CATEGORIES, MAX_DESCRIPTION, MAX_INSTRUCTIONS, MAX_NAME, MAX_SHORT
from mnemo.api.platform.bodies import Lenient
from mnemo.api.platform.dependencies import TenancyServiceDep
from mnemo.api.platform.responses.tenancy import (
    PROJECT_FIELDS,
    KeyCreatedOut,
    KeyOut,
    MemberChangeRefusedOut,
    MembersOut,
    OrgCreatedOut,
    OrgOut,
    ProjectCreatedOut,
    ProjectFieldsOut,
    ProjectOut,
    ProjectUpdatedOut,
)
from mnemo.api.platform.security import Caller
from mnemo.api.responses import MessageOut, errors
from mnemo.api.routing import TypedRoute
from mnemo.errors import NotFoundError, PermissionDeniedError, ValidationError

router = APIRouter(
    route_class=TypedRoute, prefix="/api/v1/orgs/organizations", tags=["platform: organizations and projects"]
)

ORG = "/{org_id}/"
PROJECT = "/{org_id}/projects/{project_id}/"

MEMBER_ADDED = "User added to the project successfully."
MEMBER_NOT_ALLOWED = "You are not authorized to modify project members."
MEMBER_NOT_FOUND = "Organization or project not found."


class NameBody(Lenient):
    name: str | None = Field(default=None, max_length=MAX_NAME)
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)


class MemberBody(Lenient):
    email: str | None = Field(default=None, max_length=MAX_NAME)
    role: str | None = Field(default=None, max_length=MAX_SHORT, description="READER or OWNER.")


class KeyBody(Lenient):
    email: str | None = Field(default=None, max_length=MAX_NAME, description="The member the key is for (the caller).")
    label: str = Field(default="", max_length=MAX_NAME)


class ProjectPatch(Lenient):
    name: str | None = Field(default=None, max_length=MAX_NAME)
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)
    custom_instructions: str | None = Field(default=None, max_length=MAX_INSTRUCTIONS)
    custom_categories: list[Any] | None = Field(default=None, max_length=MAX_CATEGORIES)
    multilingual: bool | None = None
    decay: bool | None = None
    agent_custom_instructions: str | None = Field(
        default=None,
        max_length=MAX_INSTRUCTIONS,
        description='Instructions for the memories of an agent alone (no user id); "" or null clears them.',
    )
    memory_depth: str | None = Field(default=None, max_length=MAX_NAME, description="Stored and answered.")
    usecase_setting: str | None = Field(default=None, max_length=MAX_DESCRIPTION, description="Stored and answered.")
    version: str | None = Field(default=None, max_length=MAX_NAME, description="Stored and answered.")
    enable_graph: bool | None = Field(
        default=None, description="mnemo has no graph store: false is accepted, true is a 400 that says so."
    )


# What the clients send in every project update besides the settings (the Project class adds its ids).
ALWAYS_SENT = frozenset({"org_id", "project_id"})


# ---- organizations --------------------------------------------------------------------------------------


@router.get("/", summary="The caller's organizations", responses=errors(401))
def list_orgs(caller: Caller, tenancy: TenancyServiceDep) -> list[OrgOut]:
    return [OrgOut.of(found) for found in tenancy.orgs(caller.user)]


@router.post(
    "/",
    status_code=201,
    summary="Create an organization; the caller becomes its OWNER",
    responses=errors(400, 401),
)
def create_org(body: NameBody, caller: Caller, tenancy: TenancyServiceDep) -> OrgCreatedOut:
    org = tenancy.create_org(caller.user, body.name or "")
    return OrgCreatedOut(message="Organization created successfully.", org_id=org.id)


@router.get(ORG, summary="One organization", responses=errors(401, 404))
def get_org(org_id: str, caller: Caller, tenancy: TenancyServiceDep) -> OrgOut:
    return OrgOut.of(tenancy.org(org_id, caller.user))


@router.delete(
    ORG,
    summary="Delete an organization with all its projects and their data (OWNER)",
    responses=errors(401, 403, 404),
)
def delete_org(org_id: str, caller: Caller, tenancy: TenancyServiceDep) -> MessageOut:
    tenancy.delete_org(org_id, caller.user)
    return MessageOut(message="Organization deleted successfully.")


@router.get(ORG + "members/", summary="Members of an organization", responses=errors(401, 404))
def org_members(org_id: str, caller: Caller, tenancy: TenancyServiceDep) -> MembersOut:
    return MembersOut.of(tenancy.org_members(org_id, caller.user))


@router.post(ORG + "members/", summary="Add a member to an organization (OWNER)", responses=errors(400, 401, 403, 404))
def add_org_member(org_id: str, body: MemberBody, caller: Caller, tenancy: TenancyServiceDep) -> MessageOut:
    tenancy.add_org_member(org_id, caller.user, body.email, body.role)
    return MessageOut(message="User added to the organization successfully.")


@router.put(
    ORG + "members/", summary="Change an organization member's role (OWNER)", responses=errors(400, 401, 403, 404)
)
def update_org_member(org_id: str, body: MemberBody, caller: Caller, tenancy: TenancyServiceDep) -> MessageOut:
    tenancy.update_org_member(org_id, caller.user, body.email, body.role)
    return MessageOut(message="User role updated successfully.")


@router.delete(
    ORG + "members/",
    summary="Remove an organization member (OWNER); the email goes in the JSON body",
    responses=errors(400, 401, 403, 404),
)
def remove_org_member(org_id: str, body: MemberBody, caller: Caller, tenancy: TenancyServiceDep) -> MessageOut:
    tenancy.remove_org_member(org_id, caller.user, body.email)
    return MessageOut(message="Member removed from the organization.")


# ---- projects -------------------------------------------------------------------------------------------


@router.get(ORG + "projects/", summary="The organization's projects the caller can see", responses=errors(401, 404))
def list_projects(org_id: str, caller: Caller, tenancy: TenancyServiceDep) -> list[ProjectOut]:
    return [ProjectOut.of(found) for found in tenancy.projects(org_id, caller.user)]


@router.post(
    ORG + "projects/",
    summary="Create a project (organization OWNER); the caller becomes its OWNER",
    responses=errors(400, 401, 403, 404),
)
def create_project(org_id: str, body: NameBody, caller: Caller, tenancy: TenancyServiceDep) -> ProjectCreatedOut:
    project = tenancy.create_project(org_id, caller.user, body.name or "", body.description or "")
    return ProjectCreatedOut(message="Project created successfully.", project_id=project.id)


@router.get(
    PROJECT,
    summary="One project; `fields` lists the fields to return (e.g. ?fields=decay)",
    response_description="The project; only the keys `fields` named when it names some.",
    response_model=ProjectOut | ProjectFieldsOut,
    response_model_exclude_unset=True,
    responses=errors(400, 401, 404),
)
def get_project(
    org_id: str,
    project_id: str,
    caller: Caller,
    tenancy: TenancyServiceDep,
    fields: Annotated[list[str] | None, Query()] = None,
) -> ProjectOut | JSONResponse:
    found = tenancy.project(org_id, project_id, caller.user)
    wanted = [name.strip() for value in fields or () for name in value.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in PROJECT_FIELDS]
    if unknown:
        raise ValidationError(f"Unknown project fields: {', '.join(unknown)}. Known: {', '.join(PROJECT_FIELDS)}.")
    project = ProjectOut.of(found)
    if not wanted:
        return project
    shown = project.model_dump(mode="json")
    return JSONResponse({name: shown[name] for name in wanted})  # in the order asked for (a ProjectFieldsOut)


def _project_patch(body: ProjectPatch) -> dict[str, Any]:
    """The settings the body sets (an explicit null clears custom_instructions; other nulls change nothing)."""
    unknown = sorted(set(body.model_extra or {}) - ALWAYS_SENT)
    if unknown:
        raise ValidationError(
            f"Unknown project settings: {', '.join(unknown)}. Known: {', '.join(ProjectPatch.model_fields)}."
        )
    return {name: getattr(body, name) for name in ProjectPatch.model_fields if name in body.model_fields_set}


@router.patch(PROJECT, summary="Update a project's settings (OWNER)", responses=errors(400, 401, 403, 404))
def update_project(
    org_id: str, project_id: str, body: ProjectPatch, caller: Caller, tenancy: TenancyServiceDep
) -> ProjectUpdatedOut:
    updated = tenancy.update_project(org_id, project_id, caller.user, _project_patch(body))
    return ProjectUpdatedOut.of(updated)


@router.delete(
    PROJECT,
    summary="Delete a project and everything in it, irreversibly (OWNER)",
    responses=errors(401, 403, 404),
)
def delete_project(org_id: str, project_id: str, caller: Caller, tenancy: TenancyServiceDep) -> MessageOut:
    tenancy.delete_project(org_id, project_id, caller.user)
    return MessageOut(message="Project and related data deleted successfully.")


# ---- project members ------------------------------------------------------------------------------------


@router.get(PROJECT + "members/", summary="Members of a project", responses=errors(401, 404))
def project_members(org_id: str, project_id: str, caller: Caller, tenancy: TenancyServiceDep) -> MembersOut:
    return MembersOut.of(tenancy.project_members(org_id, project_id, caller.user))


def _member_change(run: Callable[[], None], success: str) -> MessageOut | JSONResponse:
    """The interface's three outcomes: done; the caller may not modify members; org or project not found (the
    refusals carry `message` as well as `detail`, so they bypass the error handlers)."""
    try:
        run()
    except NotFoundError:
        return JSONResponse({"message": MEMBER_NOT_FOUND, "detail": MEMBER_NOT_FOUND}, status_code=404)
    except PermissionDeniedError:
        return JSONResponse({"message": MEMBER_NOT_ALLOWED, "detail": MEMBER_NOT_ALLOWED}, status_code=403)
    return MessageOut(message=success)


@router.post(
    PROJECT + "members/",
    summary="Add a member to a project (OWNER)",
    response_model=MessageOut,
    responses={
        **errors(400, 401),
        403: {"model": MemberChangeRefusedOut, "description": MEMBER_NOT_ALLOWED},
        404: {"model": MemberChangeRefusedOut, "description": MEMBER_NOT_FOUND},
    },
)
def add_project_member(
    org_id: str, project_id: str, body: MemberBody, caller: Caller, tenancy: TenancyServiceDep
) -> MessageOut | JSONResponse:
    return _member_change(
        lambda: tenancy.add_project_member(org_id, project_id, caller.user, body.email, body.role), MEMBER_ADDED
    )


@router.put(
    PROJECT + "members/", summary="Change a project member's role (OWNER)", responses=errors(400, 401, 403, 404)
)
def update_project_member(
    org_id: str, project_id: str, body: MemberBody, caller: Caller, tenancy: TenancyServiceDep
) -> MessageOut:
    tenancy.update_project_member(org_id, project_id, caller.user, body.email, body.role)
    return MessageOut(message="User role updated successfully.")


@router.delete(PROJECT + "members/", summary="Remove a project member (OWNER)", responses=errors(400, 401, 403, 404))
def remove_project_member(
    org_id: str, project_id: str, caller: Caller, tenancy: TenancyServiceDep, email: str = ""
) -> MessageOut:
    tenancy.remove_project_member(org_id, project_id, caller.user, email)
    return MessageOut(message="Member removed from the project")


# ---- project API keys (ours) --------------------------------------------------------------------------


@router.get(
    PROJECT + "api-keys/",
    summary="The project's API keys (OWNER); values are never shown again",
    responses=errors(401, 403, 404),
)
def list_keys(org_id: str, project_id: str, caller: Caller, tenancy: TenancyServiceDep) -> list[KeyOut]:
    return [KeyOut.of(found) for found in tenancy.keys(org_id, project_id, caller.user)]


@router.post(
    PROJECT + "api-keys/",
    status_code=201,
    summary="Create a project API key (OWNER); shown once",
    responses=errors(400, 401, 403, 404),
)
def create_key(
    org_id: str, project_id: str, body: KeyBody, caller: Caller, tenancy: TenancyServiceDep
) -> KeyCreatedOut:
    return KeyCreatedOut.of(tenancy.create_key(org_id, project_id, caller.user, body.email, body.label))


@router.delete(
    PROJECT + "api-keys/{key_id}/", summary="Revoke a project API key (OWNER)", responses=errors(401, 403, 404)
)
def revoke_key(org_id: str, project_id: str, key_id: str, caller: Caller, tenancy: TenancyServiceDep) -> MessageOut:
    tenancy.revoke_key(org_id, project_id, caller.user, key_id)
    return MessageOut(message="API key revoked.")
