"""Self-hosted entities: the users, agents and runs that own memories, counted by the store and deleted with their
memories. The store counts apps too (the platform lists them); the self-hosted surface, as the reference server's,
neither lists nor deletes apps."""

from __future__ import annotations

from mnemo.domain import filters as f
from mnemo.domain.entities import SELF_HOSTED_ENTITY_TYPES, EntityCount, EntityType
from mnemo.domain.entity_ids import checked_entity_id
from mnemo.errors import ValidationError
from mnemo.services.memory import MemoryService


class EntityService:
    def __init__(self, memory_service: MemoryService) -> None:
        self._memory_service = memory_service

    def list(self) -> list[EntityCount]:
        return [c for c in self._memory_service.entity_counts() if c.type in SELF_HOSTED_ENTITY_TYPES]

    def delete(self, entity_type: str, entity_id: str) -> int:
        """Delete every memory of the entity (each with its DELETE history row); returns how many."""
        kind: EntityType | None = next((k for k in SELF_HOSTED_ENTITY_TYPES if k.value == entity_type), None)
        if kind is None:
            raise ValidationError("entity_type must be one of: user, agent, run.")
        if not entity_id.strip():
            raise ValidationError("entity_id must not be empty.")
        checked_entity_id(entity_id, kind.field)  # a 400 for what no memory can be kept under, as everywhere
        # An exact match: "*" here is an id like any other, not the "has a value" wildcard of the filters.
        return self._memory_service.delete_all(f.Condition(kind.field, "eq", entity_id))
