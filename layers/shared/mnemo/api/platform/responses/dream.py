"""Answers of the Dream configuration routes (issue 15)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from mnemo.services.platform.dream import DreamConfig


class DreamSettingsOut(BaseModel):
    reflection_enabled: bool = Field(description="Whether Synthesis (reflection) is on for the project.")
    reflection_enabled_at: datetime | None = Field(description="When it was last turned on.")
    reflection_mode: str = Field(description="How it runs: batch.", examples=["batch"])


class EntitlementsOut(BaseModel):
    plan: str = Field(description="The deployment's plan (MNEMO_PLAN).", examples=["self-hosted"])
    reflection_interval_days: int = Field(description="Synthesis runs at most once per this many days per user.")
    features: dict[str, Any] = Field(
        description="What the deployment offers: supersede and merge (at add time, every project), synthesis, "
        "and the reflection modes.",
        examples=[{"supersede": True, "merge": True, "synthesis": False, "reflection_modes": ["batch"]}],
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
                features=offered.features,
            ),
        )
