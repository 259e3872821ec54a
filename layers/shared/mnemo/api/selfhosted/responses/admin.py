"""Answers of the configuration and admin routes: /configure, /entities, /requests."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from mnemo.api.responses import MessageOut, ZuluTimestamp
from mnemo.domain.entities import EntityCount
from mnemo.domain.request_log import RequestLogEntry


class ProviderSection(BaseModel):
    """A provider and its settings."""

    model_config = ConfigDict(extra="allow")  # keys of an older stored configuration are shown as they are

    # Both as stored: a section sent without its config (`{"provider": "openai"}`) is shown without one.
    provider: str | SkipJsonSchema[None] = Field(default=None, description="The provider's name.", examples=["openai"])
    config: dict[str, Any] | None = Field(
        default=None,
        description="Its settings; secrets (api_key, password, …) shown as [redacted].",
        examples=[{"model": "gpt-4.1-mini", "api_key": "[redacted]"}],
    )


class ConfigurationOut(BaseModel):
    """The configuration in effect, secrets redacted (GET /configure)."""

    model_config = ConfigDict(extra="allow")  # keys of an older stored configuration are shown as they are

    version: str = Field(description="The configuration format.", examples=["v1.1"])
    embedder: ProviderSection = Field(description="The embedder.")
    llm: ProviderSection | None = Field(description="The LLM; null when none is configured (no inference).")
    custom_instructions: str | None = Field(description="Instructions for fact extraction; null for the default.")

    @classmethod
    def of(cls, configuration: dict[str, Any]) -> ConfigurationOut:
        return cls.model_validate(configuration)


class BundledProviders(BaseModel):
    """The providers bundled in this build (GET /configure/providers)."""

    llm: list[str] = Field(description="LLM providers.", examples=[["bedrock", "openai"]])
    embedder: list[str] = Field(description="Embedder providers.", examples=[["bedrock", "local", "openai"]])

    @classmethod
    def of(cls, bundled: dict[str, list[str]]) -> BundledProviders:
        return cls.model_validate(bundled)


class EntitySummary(BaseModel):
    """A user, agent or run that has memories."""

    id: str = Field(description="The user_id, agent_id or run_id.", examples=["alice"])
    type: Literal["user", "agent", "run"] = Field(description="Which kind of id.")
    total_memories: int = Field(description="How many memories it has.", examples=[3])
    created_at: ZuluTimestamp = Field(description="When its oldest memory was created (UTC).")
    updated_at: ZuluTimestamp = Field(description="The latest change to any of its memories (UTC).")

    @classmethod
    def of(cls, entity: EntityCount) -> EntitySummary:
        return cls.model_validate(
            {
                "id": entity.id,
                "type": entity.type.value,
                "total_memories": entity.total_memories,
                "created_at": entity.created_at,
                "updated_at": entity.updated_at,
            }
        )


class EntityDeleted(MessageOut):
    """The answer of DELETE /entities/{entity_type}/{entity_id}."""

    deleted_memories: int = Field(description="How many memories were deleted.", examples=[3])


class RequestLogOut(BaseModel):
    """One logged API call: what was called and by whom, never a body, a token or a key."""

    id: str = Field(description="The entry's id.")
    method: str = Field(description="The HTTP method.", examples=["POST"])
    path: str = Field(description="The path, without the query string.", examples=["/memories"])
    status_code: int = Field(description="The answer's HTTP status.", examples=[200])
    latency_ms: float = Field(description="How long the call took, in milliseconds.", examples=[12.34])
    auth_type: str = Field(
        description="How the caller authenticated: bearer, api_key, admin_api_key, disabled or none.",
        examples=["api_key"],
    )
    user_id: str | None = Field(description="The calling user's id; null for the admin key or no user.")
    key_prefix: str | None = Field(description="The shown prefix of the per-user key used; null otherwise.")
    request_id: str | None = Field(description="The call's X-Request-ID.", examples=["1f3a9c2e"])
    created_at: ZuluTimestamp = Field(description="When the call was made (UTC).")

    @classmethod
    def of(cls, entry: RequestLogEntry) -> RequestLogOut:
        return cls(
            id=entry.id,
            method=entry.method,
            path=entry.path,
            status_code=entry.status_code,
            latency_ms=entry.latency_ms,
            auth_type=entry.auth_type,
            user_id=entry.user_id,
            key_prefix=entry.key_prefix,
            request_id=entry.request_id,
            created_at=entry.created_at,
        )
