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

from mnemo.api.platform.requests import (
    MAX_CATEGORIES,
    MAX_DESCRIPTION,
    MAX_INSTRUCTIONS,
    MAX_NAME,
    Lenient,
    categories_of,
)
from mnemo.api.platform.security import Caller, Platform
from mnemo.api.platform.views import PROJECT_FIELDS, key_view, members_view, org_view, project_view
from mnemo.domain.tenancy import Role
from mnemo.domain.timefmt import iso
from mnemo.errors import NotFoundError, PermissionDeniedError, ValidationError

router = APIRouter(prefix="/api/v1/orgs/organizations", tags=["platform: organizations and projects"])

ORG = "/{org_id}/"
PROJECT = "/{org_id}/projects/{project_id}/"

MEMBER_ADDED = "User added to the project successfully."
MEMBER_NOT_ALLOWED = "You are not authorized to modify project members."
MEMBER_NOT_FOUND = "Organization or project not found."


class NameBody(Lenient):
    name: str | None = Field(default=None, max_length=MAX_NAME)
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)


class MemberBody(Lenient):
    email: str | None = None
    role: str | None = None


class KeyBody(Lenient):
    email: str | None = None
    label: str = Field(default="", max_length=MAX_NAME)


class ProjectPatch(Lenient):
    name: str | None = Field(default=None, max_length=MAX_NAME)
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)
    custom_instructions: str | None = Field(default=None, max_length=MAX_INSTRUCTIONS)
    custom_categories: list[Any] | None = Field(default=None, max_length=MAX_CATEGORIES)
    multilingual: bool | None = None
    decay: bool | None = None


def _email_of(body: MemberBody) -> str:
    if not body.email:
        raise ValidationError("email is required.")
    return body.email


def _role_of(body: MemberBody) -> str:
    if not body.role:
        raise ValidationError("role is required (READER or OWNER).")
    return body.role


# ---- organizations --------------------------------------------------------------------------------------


@router.get("/", summary="The caller's organizations")
def list_orgs(caller: Caller, platform: Platform) -> list[dict[str, Any]]:
    tenancy = platform.tenancy
    out = []
    for org in tenancy.orgs_of(caller.user):
        members = tenancy.store.org_members(org.id)
        out.append(org_view(org, members, tenancy.org_role(org, caller.user)))
    return out


@router.post("/", status_code=201, summary="Create an organization; the caller becomes its OWNER")
def create_org(body: NameBody, caller: Caller, platform: Platform) -> dict[str, str]:
    org = platform.tenancy.create_org(caller.user, body.name or "")
    return {"message": "Organization created successfully.", "org_id": org.id}


@router.get(ORG, summary="One organization")
def get_org(org_id: str, caller: Caller, platform: Platform) -> dict[str, Any]:
    tenancy = platform.tenancy
    org = tenancy.org_for(org_id, caller.user)
    return org_view(org, tenancy.store.org_members(org.id), tenancy.org_role(org, caller.user))


@router.delete(ORG, summary="Delete an organization with all its projects and their data (OWNER)")
def delete_org(org_id: str, caller: Caller, platform: Platform) -> dict[str, str]:
    org = platform.tenancy.org_for(org_id, caller.user, Role.OWNER)
    platform.tenancy.delete_org(org)
    return {"message": "Organization deleted successfully."}


@router.get(ORG + "members/", summary="Members of an organization")
def org_members(org_id: str, caller: Caller, platform: Platform) -> dict[str, Any]:
    org = platform.tenancy.org_for(org_id, caller.user)
    return {"members": members_view(platform.tenancy.store.org_members(org.id))}


@router.post(ORG + "members/", summary="Add a member to an organization (OWNER)")
def add_org_member(org_id: str, body: MemberBody, caller: Caller, platform: Platform) -> dict[str, str]:
    org = platform.tenancy.org_for(org_id, caller.user, Role.OWNER)
    platform.tenancy.set_org_member(org, _email_of(body), _role_of(body))
    return {"message": "User added to the organization successfully."}


@router.put(ORG + "members/", summary="Change an organization member's role (OWNER)")
def update_org_member(org_id: str, body: MemberBody, caller: Caller, platform: Platform) -> dict[str, str]:
    org = platform.tenancy.org_for(org_id, caller.user, Role.OWNER)
    platform.tenancy.update_org_member(org, _email_of(body), _role_of(body))
    return {"message": "User role updated successfully."}


@router.delete(ORG + "members/", summary="Remove an organization member (OWNER); the email goes in the JSON body")
def remove_org_member(org_id: str, body: MemberBody, caller: Caller, platform: Platform) -> dict[str, str]:
    org = platform.tenancy.org_for(org_id, caller.user, Role.OWNER)
    platform.tenancy.remove_org_member(org, _email_of(body))
    return {"message": "Member removed from the organization."}


# ---- projects -------------------------------------------------------------------------------------------


@router.get(ORG + "projects/", summary="The organization's projects the caller can see")
def list_projects(org_id: str, caller: Caller, platform: Platform) -> list[dict[str, Any]]:
    tenancy = platform.tenancy
    org = tenancy.org_for(org_id, caller.user)
    out = []
    for project in tenancy.projects_visible(org, caller.user):
        role = tenancy.project_role(project, caller.user) or Role.READER
        out.append(project_view(project, tenancy.store.project_members(project.id), role))
    return out


@router.post(ORG + "projects/", summary="Create a project (organization OWNER); the caller becomes its OWNER")
def create_project(org_id: str, body: NameBody, caller: Caller, platform: Platform) -> dict[str, str]:
    org = platform.tenancy.org_for(org_id, caller.user, Role.OWNER)
    project = platform.tenancy.create_project(org, caller.user, body.name or "", body.description or "")
    return {"message": "Project created successfully.", "project_id": project.id}


@router.get(PROJECT, summary="One project; `fields` lists the fields to return (e.g. ?fields=decay)")
def get_project(
    org_id: str,
    project_id: str,
    caller: Caller,
    platform: Platform,
    fields: Annotated[list[str] | None, Query()] = None,
) -> dict[str, Any]:
    tenancy = platform.tenancy
    project, role = tenancy.project_for(org_id, project_id, caller.user)
    wanted = [name.strip() for value in fields or () for name in value.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in PROJECT_FIELDS]
    if unknown:
        raise ValidationError(f"Unknown project fields: {', '.join(unknown)}. Known: {', '.join(PROJECT_FIELDS)}.")
    return project_view(project, tenancy.store.project_members(project.id), role, wanted)


@router.patch(PROJECT, summary="Update a project's settings (OWNER)")
def update_project(
    org_id: str, project_id: str, body: ProjectPatch, caller: Caller, platform: Platform
) -> dict[str, Any]:
    tenancy = platform.tenancy
    project, role = tenancy.project_for(org_id, project_id, caller.user, Role.OWNER)
    changes: dict[str, Any] = {}
    for name in ("name", "description", "custom_instructions", "multilingual", "decay"):
        if name in body.model_fields_set and getattr(body, name) is not None:
            changes[name] = getattr(body, name)
    if "custom_instructions" in body.model_fields_set and body.custom_instructions is None:
        changes["custom_instructions"] = None
    if "custom_categories" in body.model_fields_set:
        raw = [{name: ""} if isinstance(name, str) else name for name in body.custom_categories or []]
        changes["custom_categories"] = tuple(categories_of(raw))
    if "name" in changes and not str(changes["name"]).strip():
        raise ValidationError("name must not be empty.")
    if not changes:
        raise ValidationError(
            "Give at least one of: name, description, custom_instructions, custom_categories, multilingual, decay."
        )
    updated = tenancy.update_project(project, changes)
    return {
        "message": "Project updated successfully",
        **project_view(updated, tenancy.store.project_members(updated.id), role),
    }


@router.delete(PROJECT, summary="Delete a project and everything in it, irreversibly (OWNER)")
def delete_project(org_id: str, project_id: str, caller: Caller, platform: Platform) -> dict[str, str]:
    project, _role = platform.tenancy.project_for(org_id, project_id, caller.user, Role.OWNER)
    platform.tenancy.delete_project(project)
    return {"message": "Project and related data deleted successfully."}


# ---- project members ------------------------------------------------------------------------------------


@router.get(PROJECT + "members/", summary="Members of a project")
def project_members(org_id: str, project_id: str, caller: Caller, platform: Platform) -> dict[str, Any]:
    project, _role = platform.tenancy.project_for(org_id, project_id, caller.user)
    return {"members": members_view(platform.tenancy.store.project_members(project.id))}


def _member_change(run: Callable[[], None], success: str) -> JSONResponse:
    """The interface's three outcomes: done; the caller may not modify members; org or project not found."""
    try:
        run()
    except NotFoundError:
        return JSONResponse({"message": MEMBER_NOT_FOUND, "detail": MEMBER_NOT_FOUND}, status_code=404)
    except PermissionDeniedError:
        return JSONResponse({"message": MEMBER_NOT_ALLOWED, "detail": MEMBER_NOT_ALLOWED}, status_code=403)
    return JSONResponse({"message": success})


@router.post(PROJECT + "members/", summary="Add a member to a project (OWNER)")
def add_project_member(
    org_id: str, project_id: str, body: MemberBody, caller: Caller, platform: Platform
) -> JSONResponse:
    email, role = _email_of(body), _role_of(body)

    def run() -> None:
        project, _role = platform.tenancy.project_for(org_id, project_id, caller.user, Role.OWNER)
        platform.tenancy.add_project_member(project, email, role)

    return _member_change(run, MEMBER_ADDED)


@router.put(PROJECT + "members/", summary="Change a project member's role (OWNER)")
def update_project_member(
    org_id: str, project_id: str, body: MemberBody, caller: Caller, platform: Platform
) -> dict[str, str]:
    project, _role = platform.tenancy.project_for(org_id, project_id, caller.user, Role.OWNER)
    platform.tenancy.update_project_member(project, _email_of(body), _role_of(body))
    return {"message": "User role updated successfully."}


@router.delete(PROJECT + "members/", summary="Remove a project member (OWNER)")
def remove_project_member(
    org_id: str, project_id: str, caller: Caller, platform: Platform, email: str = ""
) -> dict[str, str]:
    project, _role = platform.tenancy.project_for(org_id, project_id, caller.user, Role.OWNER)
    if not email:
        raise ValidationError("email is required.")
    platform.tenancy.remove_project_member(project, email)
    return {"message": "Member removed from the project"}


# ---- project API keys (ours) --------------------------------------------------------------------------


@router.get(PROJECT + "api-keys/", summary="The project's API keys (OWNER); values are never shown again")
def list_keys(org_id: str, project_id: str, caller: Caller, platform: Platform) -> list[dict[str, Any]]:
    tenancy = platform.tenancy
    project, _role = tenancy.project_for(org_id, project_id, caller.user, Role.OWNER)
    out = []
    for key in tenancy.store.keys_of_project(project.id):
        user = tenancy.store.user_by_id(key.user_id)
        out.append(key_view(key, user.email if user else None))
    return out


@router.post(PROJECT + "api-keys/", status_code=201, summary="Create a project API key (OWNER); shown once")
def create_key(org_id: str, project_id: str, body: KeyBody, caller: Caller, platform: Platform) -> dict[str, Any]:
    tenancy = platform.tenancy
    project, _role = tenancy.project_for(org_id, project_id, caller.user, Role.OWNER)
    user = tenancy.user(body.email) if body.email else caller.user
    key, value = tenancy.create_key(project, user, body.label)
    return {
        "id": key.id,
        "api_key": value,
        "key_prefix": key.key_prefix,
        "label": key.label,
        "user_email": user.email,
        "project_id": project.id,
        "org_id": project.org_id,
        "created_at": iso(key.created_at),
    }


@router.delete(PROJECT + "api-keys/{key_id}/", summary="Revoke a project API key (OWNER)")
def revoke_key(org_id: str, project_id: str, key_id: str, caller: Caller, platform: Platform) -> dict[str, str]:
    project, _role = platform.tenancy.project_for(org_id, project_id, caller.user, Role.OWNER)
    platform.tenancy.revoke_key(project, key_id)
    return {"message": "API key revoked."}
