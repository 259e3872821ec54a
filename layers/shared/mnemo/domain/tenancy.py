"""Platform tenancy: users (by email), organizations, projects, their members and roles, project API keys,
and the per-project records beside the memories (events, exports, feedback).

Every memory of the platform lives in the namespace of one project (see mnemo.ports.memory_namespaces); a
project's id is its namespace. The self-hosted surface uses the fixed namespace `DEFAULT_NAMESPACE`.
"""

from __future__ import annotations

import re
import secrets
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from mnemo.domain.accounts import is_email as is_account_email
from mnemo.domain.llm_usage import LLMUsage

DEFAULT_NAMESPACE = "default"
PROJECT_KEY_PREFIX = "m0-"
SHOWN_KEY_PREFIX_LENGTH = 10
_KEY_FORMAT = re.compile(r"^m0-[A-Za-z0-9_-]{43}$")


class Role(StrEnum):
    READER = "READER"
    OWNER = "OWNER"

    def allows(self, needed: Role) -> bool:
        return self is Role.OWNER or needed is Role.READER


class EventStatus(StrEnum):
    """Where an event is: PENDING (queued) and RUNNING are unfinished; every other status is an end. A job (an
    asynchronous add, an import) ends SUCCEEDED, PARTIALLY_COMPLETED (an import some of whose items were refused
    or failed), FAILED, or CANCELLED (by POST /v1/event/{id}/cancel/)."""

    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    PARTIALLY_COMPLETED = "PARTIALLY_COMPLETED"
    CANCELLED = "CANCELLED"

    @property
    def finished(self) -> bool:
        """Whether the event has ended (nothing will run it again)."""
        return self not in (EventStatus.PENDING, EventStatus.RUNNING)


def new_org_id() -> str:
    return "org_" + uuid.uuid4().hex[:20]


def new_project_id() -> str:
    return "proj_" + uuid.uuid4().hex[:20]


def new_project_key() -> str:
    return PROJECT_KEY_PREFIX + secrets.token_urlsafe(32)


def is_project_key(value: str) -> bool:
    return bool(_KEY_FORMAT.match(value))


def normal_email(email: str) -> str:
    """Emails identify platform users; they compare case-insensitively."""
    return email.strip().lower()


def is_email(value: str) -> bool:
    """The self-hosted accounts' rule (at most 255 characters), around surrounding spaces."""
    return is_account_email(value.strip())


@dataclass(frozen=True, slots=True)
class PlatformUser:
    id: str
    email: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Organization:
    id: str
    name: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Project:
    id: str
    org_id: str
    name: str
    created_at: datetime
    updated_at: datetime
    description: str = ""
    custom_instructions: str | None = None
    custom_categories: tuple[dict[str, str], ...] = ()
    multilingual: bool = False
    decay: bool = False
    is_default: bool = False
    reflection_enabled: bool = False  # Dream's synthesis (reflection) turned on
    reflection_enabled_at: datetime | None = None  # when it was last turned on
    reflection_mode: str = "batch"
    # Settings the clients' ProjectUpdateOptions send: instructions for memories of an agent alone, and what the
    # reference keeps beside (stored and answered; mnemo's extraction does not read memory_depth, usecase_setting or
    # version).
    agent_custom_instructions: str | None = None
    memory_depth: str | None = None
    usecase_setting: str | None = None
    version: str | None = None

    def changed(self, **fields: Any) -> Project:
        return replace(self, **fields)


@dataclass(frozen=True, slots=True)
class Member:
    """A user's role in an organization or a project (`scope_id` is the org or project id)."""

    scope_id: str
    user: PlatformUser
    role: Role


@dataclass(frozen=True, slots=True)
class ProjectKey:
    id: str
    project_id: str
    user_id: str
    label: str
    key_prefix: str
    key_hash: str
    created_at: datetime
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PlatformEvent:
    """An operation of a project the caller can follow at /v1/event/{id}/: an asynchronous add, a delete."""

    id: str
    project_id: str
    event_type: str  # ADD, DELETE, ...
    status: EventStatus
    payload: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    results: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None
    attempts: int = 0  # how many times a worker started it (an asynchronous add is retried a few times)
    # An add's LLM calls and tokens, over all its attempts (zero calls when it called none); None for other events
    # and an add that has not run yet.
    llm_usage: LLMUsage | None = None

    def changed(self, **fields: Any) -> PlatformEvent:
        return replace(self, **fields)


@dataclass(frozen=True, slots=True)
class MemoryExport:
    id: str
    project_id: str
    schema: dict[str, Any]
    filters: dict[str, Any]
    instructions: str | None
    result: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Feedback:
    memory_id: str
    project_id: str
    feedback: str | None
    reason: str | None
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ProjectEntity:
    """A user, agent, app or run created explicitly (POST /v1/users/ …), with a display name and metadata; it
    exists before, and beside, any memory of it."""

    project_id: str
    type: str  # user, agent, app or run
    entity_id: str
    name: str
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
