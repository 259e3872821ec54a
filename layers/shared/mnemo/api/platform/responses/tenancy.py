"""Answers of the organization, project, member and project-key routes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from mnemo.api.platform.responses.common import Omitted
from mnemo.api.responses import MessageOut, Timestamp
from mnemo.domain.tenancy import Member, Role
from mnemo.services.platform.tenancy.callers import CreatedKey, KeyDetails, OrgDetails, ProjectDetails

ORG_ID = "org_6f1c2a9e0b3d4c5e6f7a"
PROJECT_ID = "proj_0a1b2c3d4e5f6a7b8c9d"


class MemberOut(BaseModel):
    """A member of an organization or a project."""

    username: str = Field(description="The member's email (users are known by email).", examples=["bob@example.com"])
    email: str = Field(examples=["bob@example.com"])
    role: Role = Field(description="READER views and searches; OWNER does everything.")

    @classmethod
    def all_of(cls, members: Sequence[Member]) -> list[MemberOut]:
        return [cls(username=m.user.email, email=m.user.email, role=m.role) for m in members]


class MembersOut(BaseModel):
    members: list[MemberOut]

    @classmethod
    def of(cls, members: Sequence[Member]) -> MembersOut:
        return cls(members=MemberOut.all_of(members))


class MemberChangeRefusedOut(BaseModel):
    """Why a project member could not be added: the same words under `message` and `detail`."""

    message: str = Field(examples=["You are not authorized to modify project members."])
    detail: str = Field(examples=["You are not authorized to modify project members."])


# ---- organizations --------------------------------------------------------------------------------------


class OrgOut(BaseModel):
    """An organization, as the caller (one of its members) sees it."""

    org_id: str = Field(examples=[ORG_ID])
    name: str = Field(examples=["Acme"])
    created_at: Timestamp
    updated_at: Timestamp
    members: list[MemberOut]
    is_owner: bool = Field(description="Whether the caller is an OWNER of it.")
    user_role: Role | None = Field(description="The caller's role in it.")

    @classmethod
    def of(cls, found: OrgDetails) -> OrgOut:
        return cls(
            org_id=found.org.id,
            name=found.org.name,
            created_at=found.org.created_at,
            updated_at=found.org.updated_at,
            members=MemberOut.all_of(found.members),
            is_owner=found.role is Role.OWNER,
            user_role=found.role,
        )


class OrgCreatedOut(BaseModel):
    message: str = Field(examples=["Organization created successfully."])
    org_id: str = Field(examples=[ORG_ID])


# ---- projects -------------------------------------------------------------------------------------------


class ProjectOut(BaseModel):
    """A project and its settings, as the caller (one of its members) sees it."""

    project_id: str = Field(examples=[PROJECT_ID])
    org_id: str = Field(examples=[ORG_ID])
    name: str = Field(examples=["Default Project"])
    description: str = Field(examples=[""])
    created_at: Timestamp
    updated_at: Timestamp
    members: list[MemberOut]
    custom_instructions: str | None = Field(description="Extraction instructions; null for the defaults.")
    custom_categories: list[dict[str, str]] = Field(
        description="Single-entry {name: description} objects; empty for the default categories.",
        examples=[[{"travel": "Trips and places"}]],
    )
    multilingual: bool = Field(description="Memories are kept in the input's language.")
    decay: bool = Field(description="v3 search favours memories used recently.")
    is_default: bool = Field(description="Whether it is the organization's default project.")
    user_role: Role = Field(description="The caller's role in it.")
    agent_custom_instructions: str | None = Field(
        default=None, description="Extraction instructions for the memories of an agent alone; null for none."
    )
    memory_depth: str | None = Field(default=None, description="As set; mnemo's extraction does not read it.")
    usecase_setting: str | None = Field(default=None, description="As set; mnemo's extraction does not read it.")
    version: str | None = Field(default=None, description="As set; mnemo's extraction does not read it.")
    enable_graph: bool = Field(default=False, description="Always false: mnemo has no graph store.")

    @classmethod
    def of(cls, found: ProjectDetails) -> ProjectOut:
        return ProjectOut(**_project_keys(found))


def _project_keys(found: ProjectDetails) -> dict[str, Any]:
    project = found.project
    return {
        "project_id": project.id,
        "org_id": project.org_id,
        "name": project.name,
        "description": project.description,
        "created_at": project.created_at,
        "updated_at": project.updated_at,
        "members": MemberOut.all_of(found.members),
        "custom_instructions": project.custom_instructions,
        "custom_categories": list(project.custom_categories),
        "multilingual": project.multilingual,
        "decay": project.decay,
        "is_default": project.is_default,
        "user_role": found.role,
        "agent_custom_instructions": project.agent_custom_instructions,
        "memory_depth": project.memory_depth,
        "usecase_setting": project.usecase_setting,
        "version": project.version,
        "enable_graph": False,
    }


PROJECT_FIELDS = tuple(ProjectOut.model_fields)
"""What `?fields=` may name."""


class ProjectFieldsOut(BaseModel):
    """The keys of a project (see ProjectOut) that `?fields=` named, and only those."""

    project_id: str | Omitted = None
    org_id: str | Omitted = None
    name: str | Omitted = None
    description: str | Omitted = None
    created_at: Timestamp | Omitted = None
    updated_at: Timestamp | Omitted = None
    members: list[MemberOut] | Omitted = None
    custom_instructions: str | None = None
    custom_categories: list[dict[str, str]] | Omitted = None
    multilingual: bool | Omitted = None
    decay: bool | Omitted = None
    is_default: bool | Omitted = None
    user_role: Role | Omitted = None


class ProjectUpdatedOut(ProjectOut, MessageOut):
    """The project as updated, after a `message`."""

    @classmethod
    def of(cls, found: ProjectDetails) -> ProjectUpdatedOut:
        return cls(message="Project updated successfully", **_project_keys(found))


class ProjectCreatedOut(BaseModel):
    message: str = Field(examples=["Project created successfully."])
    project_id: str = Field(examples=[PROJECT_ID])


# ---- project API keys -----------------------------------------------------------------------------------


class KeyOut(BaseModel):
    """A project API key; its value is never shown again after creation."""

    id: str
    label: str = Field(examples=["ci"])
    key_prefix: str = Field(description="The key's first characters, to recognize it.", examples=["m0-AbCdEfG"])
    user_email: str | None = Field(description="The email of the user the key acts as.")
    created_at: Timestamp
    last_used_at: Timestamp | None
    revoked_at: Timestamp | None

    @classmethod
    def of(cls, found: KeyDetails) -> KeyOut:
        key = found.key
        return cls(
            id=key.id,
            label=key.label,
            key_prefix=key.key_prefix,
            user_email=found.owner_email,
            created_at=key.created_at,
            last_used_at=key.last_used_at,
            revoked_at=key.revoked_at,
        )


class KeyCreatedOut(BaseModel):
    """A new project API key, with its value: shown this once."""

    id: str
    api_key: str = Field(description="The key: send it as `Authorization: Token <api_key>`.")
    key_prefix: str = Field(examples=["m0-AbCdEfG"])
    label: str = Field(examples=["ci"])
    user_email: str = Field(description="The email of the user the key acts as.")
    project_id: str = Field(examples=[PROJECT_ID])
    org_id: str = Field(examples=[ORG_ID])
    created_at: Timestamp

    @classmethod
    def of(cls, created: CreatedKey) -> KeyCreatedOut:
        return cls(
            id=created.key.id,
            api_key=created.value,
            key_prefix=created.key.key_prefix,
            label=created.key.label,
            user_email=created.owner.email,
            project_id=created.project.id,
            org_id=created.project.org_id,
            created_at=created.key.created_at,
        )
