"""Per-user profiles of a platform project: the project's profile settings, each user's profile with
its generation status, and the profile jobs (`trigger` one user, `sample` a few) with their progress."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from mnemo.domain.timefmt import from_iso, iso

ENTITY_USER = "user"
DEFAULT_MIN_MEMORIES = 1  # fewer memories than this: insufficient_data (a setting: entities.user.min_memories)
MAX_MIN_MEMORIES = 1_000


class ProfileStatus(StrEnum):
    SUCCEEDED = "succeeded"
    PENDING = "pending"
    FAILED = "failed"
    NOT_ENABLED = "not_enabled"
    INSUFFICIENT_DATA = "insufficient_data"


class JobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


TERMINAL_JOB_STATUSES = frozenset({JobStatus.SUCCEEDED, JobStatus.FAILED})


def default_user_schema() -> dict[str, Any]:
    """The schema of a project that has set none: a few common, described properties."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The user's name or how they like to be called."},
            "location": {"type": "string", "description": "Where the user lives or is based."},
            "occupation": {"type": "string", "description": "The user's job, profession or field of study."},
            "interests": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Hobbies, interests and things the user enjoys.",
            },
            "preferences": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The user's likes, dislikes and preferences (food, tools, style, ...).",
            },
        },
    }


@dataclass(frozen=True, slots=True)
class ProfileSettings:
    """A project's profile settings. `schema` None: the default schema applies."""

    project_id: str
    enabled: bool = False
    schema: dict[str, Any] | None = None
    custom_instructions: str | None = None
    min_memories: int = DEFAULT_MIN_MEMORIES

    @property
    def effective_schema(self) -> dict[str, Any]:
        return self.schema if self.schema is not None else default_user_schema()


@dataclass(frozen=True, slots=True)
class Profile:
    """One user's profile. While a generation is `pending`, `profile` and `sources` keep the last good one."""

    project_id: str
    entity_type: str
    entity_id: str
    status: ProfileStatus
    profile: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)
    reason: str | None = None
    updated_at: datetime | None = None
    generation_count: int = 0
    stamp: str | None = None  # what the last generation read (its memories' ids and update times)
    changed_at: datetime | None = None  # the last change of the user's memories the store was told of
    read_at: datetime | None = None  # when the last generation read the memories
    queued_at: datetime | None = None  # while pending: when the generation was queued (claimed)


@dataclass(frozen=True, slots=True)
class ProfileJob:
    """A profile job: `trigger` (one user) or `sample` (a few). `request_hash` is the hash of the body the
    Idempotency-Key came with; `answer` the first answer, replayed for the same key and body."""

    id: str
    project_id: str
    operation: str
    entity_type: str
    entity_ids: tuple[str, ...]
    status: JobStatus
    created_at: datetime
    updated_at: datetime
    idempotency_key: str | None = None
    request_hash: str | None = None
    answer: dict[str, Any] = field(default_factory=dict)
    total: int | None = None
    completed: int = 0
    succeeded: int = 0
    failed: int = 0
    skipped: int = 0
    error: str | None = None


def request_hash(body: Any) -> str:
    """The hash of a job request's body (canonical JSON), kept with its Idempotency-Key."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


PROFILE_TASK_KIND = "platform.profile"


@dataclass(frozen=True, slots=True)
class ProfileTask:
    """A unit of profile work for a worker: `generate` one user's profile (`target`: the user id) when it is still
    pending under the claim that queued it (`claimed_at`, the claim's `queued_at`; None: whatever the claim), or run
    a profile `job` (`target`: the job id). As a queue message it carries ids only:

        {"kind": "platform.profile", "version": 1, "task": "generate", "project_id": "...", "target": "...",
         "claimed_at": "2026-11-25T09:00:00.000000+00:00"}
    """

    task: str  # "generate" or "job"
    project_id: str
    target: str
    claimed_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": PROFILE_TASK_KIND,
            "version": 1,
            "task": self.task,
            "project_id": self.project_id,
            "target": self.target,
        }
        if self.claimed_at is not None:
            out["claimed_at"] = iso(self.claimed_at)
        return out

    @classmethod
    def from_json(cls, raw: Any) -> ProfileTask:
        """The task of a queue message; ValueError when it is none."""
        if not isinstance(raw, dict) or raw.get("kind") != PROFILE_TASK_KIND:
            raise ValueError("Not a profile task: expected kind platform.profile.")
        task, project_id, target = raw.get("task"), raw.get("project_id"), raw.get("target")
        if task not in ("generate", "job") or not isinstance(project_id, str) or not isinstance(target, str):
            raise ValueError("A profile task needs task (generate or job), project_id and target.")
        claimed_at = raw.get("claimed_at")
        return cls(task, project_id, target, from_iso(claimed_at) if isinstance(claimed_at, str) else None)
