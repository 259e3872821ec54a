"""Per-user profiles (the clients' `get_profile`, `generate_profile`, `get_profile_settings`,
`update_profile_settings`, `sample_profiles`, `get_profile_job`): a user's profile, the project's profile
settings, and the jobs that generate profiles (mnemo.services.platform.profiles). A READER reads; changing the
settings and starting a job need the OWNER role."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from mnemo.api.limits import MAX_NAME, EntityId, JsonObject, entity_types
from mnemo.api.platform.dependencies import ProfileServiceDep
from mnemo.api.platform.responses.profiles import ProfileJobCreatedOut, ProfileJobOut, ProfileOut, ProfileSettingsOut
from mnemo.api.platform.security import Caller, Owner
from mnemo.api.responses import errors
from mnemo.api.routing import TypedRoute
from mnemo.domain.profiles import MAX_MIN_MEMORIES
from mnemo.services.platform.profiles.job_requests import MAX_SAMPLE
from mnemo.services.platform.profiles.settings import MAX_INSTRUCTIONS

router = APIRouter(route_class=TypedRoute, tags=["platform: profiles"])

SETTINGS = "/v2/profiles/settings/"
JOBS = "/v2/profiles/jobs/"

UserEntityType = Annotated[str, entity_types("user")]
JobId = Annotated[str, Path(max_length=64, description="The job's id (or its status_url's last segment).")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=MAX_NAME,
        description="The same key with the same body replays the first answer (`replayed` true); with another "
        "body it is a 409. The clients send a fresh uuid4 hex by default.",
    ),
]


def _whole_number(value: Any) -> Any:
    """A JSON number without a fraction (5.0) is the integer JSON Schema says it is; anything else goes on to the
    strict check (a string or a bool is not a number of memories)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class UserProfileSettingsBody(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    schema_: JsonObject | None = Field(
        default=None,
        alias="schema",
        description="A JSON Schema object whose every property has a description (null: back to the default).",
    )
    custom_instructions: str | None = Field(
        default=None, max_length=MAX_INSTRUCTIONS, description="Extra guidance for the generation (null clears)."
    )
    min_memories: Annotated[int | None, BeforeValidator(_whole_number)] = Field(
        default=None,
        ge=1,
        le=MAX_MIN_MEMORIES,
        strict=True,
        description="Ours: a user with fewer memories is insufficient_data (default 1; null: back to 1).",
    )


class ProfileEntitiesBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    user: UserProfileSettingsBody | None = None


class ProfileSettingsBody(BaseModel):
    """What is sent is written; an explicit null clears. `schema`, `custom_instructions` and `min_memories` go
    under `entities.user`: anything else (a flat shape) is a 400 "Unsupported settings"."""

    model_config = ConfigDict(extra="allow")
    enabled: bool | None = Field(default=None, strict=True, description="Turn profiles on or off for the project.")
    entities: ProfileEntitiesBody | None = None

    def changes(self) -> dict[str, Any]:
        out = self.model_dump(exclude_unset=True, by_alias=True)
        if out.get("enabled", False) is None:
            del out["enabled"]
        return out


class ProfileJobBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    operation: Literal["trigger", "sample"] = Field(description="trigger: one user; sample: a few users.")
    entity_type: str = Field(default="user", max_length=64, description="user (anything else is a 400).")
    entity_id: str | None = Field(default=None, max_length=MAX_NAME, description="trigger: the user.")
    limit: int | None = Field(
        default=None, ge=1, le=MAX_SAMPLE, description=f"sample: how many users, 1 to {MAX_SAMPLE} (default 5)."
    )


@router.get(
    "/v2/entities/{entity_type}/{entity_id}/profile/",
    summary="A user's profile",
    response_description="The envelope: branch on `status`, never on an empty profile.",
    responses=errors(400, 401, 404, 503),
)
def get_profile(
    entity_type: UserEntityType, entity_id: EntityId, caller: Caller, profiles: ProfileServiceDep
) -> ProfileOut:
    return ProfileOut.of(profiles.profile(caller.project_id, entity_type, entity_id))


@router.get(SETTINGS, summary="The project's profile settings", responses=errors(401, 503))
def get_profile_settings(caller: Caller, profiles: ProfileServiceDep) -> ProfileSettingsOut:
    return ProfileSettingsOut.of(profiles.settings(caller.project_id))


@router.post(
    SETTINGS,
    summary="Change the project's profile settings",
    response_description="The settings as stored.",
    responses=errors(400, 401, 403, 503),
)
def update_profile_settings(
    body: ProfileSettingsBody, caller: Owner, profiles: ProfileServiceDep
) -> ProfileSettingsOut:
    return ProfileSettingsOut.of(profiles.update_settings(caller.project_id, body.changes()))


@router.post(
    JOBS,
    summary="Generate one user's profile (trigger) or a few users' (sample)",
    response_description="The job queued; `status_url` reads it.",
    responses=errors(400, 401, 403, 404, 409, 503),
)
def create_profile_job(
    body: ProfileJobBody, caller: Owner, profiles: ProfileServiceDep, idempotency_key: IdempotencyKey = None
) -> ProfileJobCreatedOut:
    answer = profiles.create_job(caller.project_id, body.model_dump(exclude_unset=True), idempotency_key)
    return ProfileJobCreatedOut.of(answer.body, answer.replayed)


@router.get(JOBS + "{job_id}/", summary="A profile job's progress", responses=errors(401, 404, 503))
def get_profile_job(job_id: JobId, caller: Caller, profiles: ProfileServiceDep) -> ProfileJobOut:
    return ProfileJobOut.of(profiles.job(caller.project_id, job_id))
