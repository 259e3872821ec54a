"""Entities: the distinct users, agents and runs that own memories."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class EntityType(StrEnum):
    USER = "user"
    AGENT = "agent"
    RUN = "run"

    @property
    def field(self) -> str:
        return f"{self.value}_id"


@dataclass(frozen=True, slots=True)
class EntityCount:
    type: EntityType
    id: str
    total_memories: int
    created_at: datetime  # of its oldest memory
    updated_at: datetime  # the latest change to any of its memories
