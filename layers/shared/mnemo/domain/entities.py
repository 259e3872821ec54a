"""Entities: the distinct users, agents, apps and runs that own memories.

Every store counts all four kinds; the self-hosted surface speaks of users, agents and runs only (the reference
server's `/entities` has no apps: SELF_HOSTED_ENTITY_TYPES), the platform of all four."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class EntityType(StrEnum):
    USER = "user"
    AGENT = "agent"
    APP = "app"
    RUN = "run"

    @property
    def field(self) -> str:
        return f"{self.value}_id"


SELF_HOSTED_ENTITY_TYPES = (EntityType.USER, EntityType.AGENT, EntityType.RUN)


@dataclass(frozen=True, slots=True)
class EntityCount:
    type: EntityType
    id: str
    total_memories: int
    created_at: datetime  # of its oldest memory
    updated_at: datetime  # the latest change to any of its memories
