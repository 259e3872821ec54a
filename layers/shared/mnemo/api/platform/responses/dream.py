"""Answers of the Dream routes: the configuration, a run queued, a synthesized memory's sources."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from mnemo.api.platform.responses.memories import MemoryOut
from mnemo.domain.memory import MemoryRecord
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.services.platform.dream.service import DreamConfig


class DreamSettingsOut(BaseModel):
    reflection_enabled: bool = Field(description="Whether Synthesis (reflection) is on for the project.")
    reflection_enabled_at: datetime | None = Field(description="When it was last turned on.")
    reflection_mode: str = Field(
        description="How it runs: batch (on the schedule, and on demand) or manual (only on demand).",
        examples=["batch"],
    )


class EntitlementsOut(BaseModel):
    plan: str = Field(description="The deployment's plan (MNEMO_PLAN).", examples=["self-hosted"])
    reflection_interval_days: int = Field(description="Synthesis runs at most once per this many days per user.")
    features: dict[str, Any] = Field(
        description="What the deployment offers: supersede and merge (at add time, every project); synthesis "
        "(true when the plan offers it and an LLM is configured; else `synthesis_unavailable` says why); the "
        "reflection modes; and the memories of their own a user needs (`synthesis_min_memories`).",
        examples=[
            {
                "supersede": True,
                "merge": True,
                "synthesis": True,
                "reflection_modes": ["batch", "manual"],
                "synthesis_min_memories": 20,
            }
        ],
    )


class DreamConfigOut(BaseModel):
    """A project's Dream configuration and the deployment's entitlements."""

    config: DreamSettingsOut
    entitlements: EntitlementsOut

    @classmethod
    def of(cls, dream: DreamConfig) -> DreamConfigOut:
        project, offered = dream.project, dream.entitlements
        return cls(
            config=DreamSettingsOut(
                reflection_enabled=project.reflection_enabled,
                reflection_enabled_at=project.reflection_enabled_at,
                reflection_mode=project.reflection_mode,
            ),
            entitlements=EntitlementsOut(
                plan=offered.plan,
                reflection_interval_days=offered.reflection_interval_days,
                features=dream.features,
            ),
        )


class DreamRunQueuedOut(BaseModel):
    """A Dream run queued: follow it at GET /v1/event/{event_id}/, whose results list, per user, every change."""

    message: str = Field(examples=["Dream run queued."])
    event_id: str = Field(description="The run's event.", examples=["5c1e6b0e-8a57-4e8f-9d1a-3b2f4c6d7e8f"])
    status: Literal[EventStatus.PENDING] = Field(description="PENDING.")

    @classmethod
    def of(cls, event: PlatformEvent) -> DreamRunQueuedOut:
        return cls(message="Dream run queued.", event_id=event.id, status=EventStatus.PENDING)


class DreamSourcesOut(BaseModel):
    """A memory and the memories it was synthesized from (those still stored; none for a memory that was not
    synthesized)."""

    memory_id: str
    synthesized: bool = Field(description="Whether Dream's Synthesis drew the memory from others.")
    sources: list[MemoryOut] = Field(description="The memories it was drawn from, as GET /v1/memories/{id}/ shows.")

    @classmethod
    def of(cls, record: MemoryRecord, sources: list[MemoryRecord]) -> DreamSourcesOut:
        return cls(memory_id=record.id, synthesized=record.synthesized, sources=[MemoryOut.of(s) for s in sources])
