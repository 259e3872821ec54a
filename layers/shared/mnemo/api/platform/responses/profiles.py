"""Answers of the profile routes: a user's profile envelope, the profile settings, a job created and a
job read."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from mnemo.domain.profiles import Profile, ProfileJob, ProfileSettings, ProfileStatus
from mnemo.services.platform.profiles.service import CAPABILITIES

_ID = "5c1e6b0e-8a57-4e8f-9d1a-3b2f4c6d7e8f"


class ProfileOut(BaseModel):
    """A user's profile. Branch on `status`: a known user without a profile yet is a 200 with a status. While a
    regeneration is `pending`, `profile` keeps the last good one."""

    profile: dict[str, Any] = Field(
        description="The profile, shaped by the project's schema (empty unless succeeded or pending after a success).",
        examples=[{"name": "Alice", "interests": ["climbing", "jazz"]}],
    )
    status: ProfileStatus = Field(description="succeeded, pending, failed, not_enabled or insufficient_data.")
    entity_type: Literal["user"]
    entity_id: str = Field(examples=["alice"])
    updated_at: datetime | None = Field(description="When the profile was last generated.")
    generation_count: int = Field(description="How many generations this profile has had.", examples=[3])
    sources: dict[str, list[str]] = Field(
        description="Ours: for each filled property, the ids of the memories it came from.",
        examples=[{"name": [_ID]}],
    )
    reason: str | None = Field(
        description="Ours: why it failed, what is missing (insufficient_data), or why profiles are off.",
        examples=[None],
    )

    @classmethod
    def of(cls, profile: Profile) -> ProfileOut:
        return cls(
            profile=profile.profile,
            status=profile.status,
            entity_type="user",
            entity_id=profile.entity_id,
            updated_at=profile.updated_at,
            generation_count=profile.generation_count,
            sources=profile.sources,
            reason=profile.reason,
        )


class UserProfileSettingsOut(BaseModel):
    schema_: dict[str, Any] = Field(
        alias="schema", description="The JSON Schema of a user's profile (the default one when none was set)."
    )
    custom_instructions: str | None = Field(description="Extra guidance for the generation.")
    min_memories: int = Field(description="Ours: a user with fewer memories is insufficient_data.", examples=[1])


class ProfileEntitiesOut(BaseModel):
    user: UserProfileSettingsOut


class ProfileCapabilitiesOut(BaseModel):
    jobs: bool
    estimates: bool
    samples: bool
    full_rebuild: bool


class ProfileSettingsOut(BaseModel):
    """The project's profile settings."""

    enabled: bool = Field(description="Whether profiles are generated for the project (off until turned on).")
    entities: ProfileEntitiesOut
    capabilities: ProfileCapabilitiesOut

    @classmethod
    def of(cls, settings: ProfileSettings) -> ProfileSettingsOut:
        return cls(
            enabled=settings.enabled,
            entities=ProfileEntitiesOut(
                user=UserProfileSettingsOut(
                    schema=settings.effective_schema,
                    custom_instructions=settings.custom_instructions,
                    min_memories=settings.min_memories,
                )
            ),
            capabilities=ProfileCapabilitiesOut(**CAPABILITIES),
        )


class ProfileJobCreatedOut(BaseModel):
    """A job queued (or, for the same Idempotency-Key and body, the first answer again with `replayed` true)."""

    job_id: str = Field(examples=[_ID])
    status: str = Field(description="queued when created.", examples=["queued"])
    status_url: str = Field(description="Where to read the job.", examples=[f"/v2/profiles/jobs/{_ID}/"])
    operation: Literal["trigger", "sample"]
    entity_type: Literal["user"]
    entity_count_reserved: int = Field(description="The users the job generates.", examples=[1])
    event_id: str = Field(description="The job's id again.", examples=[_ID])
    replayed: bool = Field(description="True: an earlier request with this Idempotency-Key made the job.")
    sampled: int | None = Field(default=None, description="sample: how many users were picked.")
    entity_ids: list[str] | None = Field(default=None, description="sample: the users picked.")

    @classmethod
    def of(cls, answer: dict[str, Any], replayed: bool) -> ProfileJobCreatedOut:
        return cls(**answer, replayed=replayed)


class ProfileJobBodyOut(BaseModel):
    id: str = Field(description="The job's id (what the TypeScript client's ProfileJobStatus reads).", examples=[_ID])
    job_id: str = Field(description="The job's id again (as a job's creation names it).", examples=[_ID])
    status: str = Field(description="queued, running, succeeded or failed.", examples=["succeeded"])
    operation: Literal["trigger", "sample"]
    entity_type: Literal["user"]
    entity_ids: list[str]
    total: int | None = Field(description="The users to generate; null until they are counted.", examples=[1])
    completed: int
    succeeded: int
    failed: int
    skipped: int = Field(description="Users with too little to say (insufficient_data).")
    enumeration_complete: bool
    error: str | None
    created_at: datetime
    updated_at: datetime


class ProfileJobOut(BaseModel):
    job: ProfileJobBodyOut

    @classmethod
    def of(cls, job: ProfileJob) -> ProfileJobOut:
        return cls(
            job=ProfileJobBodyOut(
                id=job.id,
                job_id=job.id,
                status=job.status.value,
                operation="sample" if job.operation == "sample" else "trigger",
                entity_type="user",
                entity_ids=list(job.entity_ids),
                total=job.total,
                completed=job.completed,
                succeeded=job.succeeded,
                failed=job.failed,
                skipped=job.skipped,
                enumeration_complete=job.total is not None,
                error=job.error,
                created_at=job.created_at,
                updated_at=job.updated_at,
            )
        )
