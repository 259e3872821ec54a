"""A project's entities: the users, agents, apps and runs that own its memories, and those created explicitly
(POST /v1/users/ …, with a display name and metadata) before or beside any memory of theirs. An entity is
listed once, whichever way it exists; deleting it deletes its memories and its record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mnemo.domain import filters as f
from mnemo.domain.memory import checked_entity_id, now
from mnemo.domain.tenancy import ProjectEntity
from mnemo.errors import ConflictError, ValidationError
from mnemo.services.platform.memories import ProjectMemories

ENTITY_TYPES = ("user", "agent", "app", "run")


@dataclass(frozen=True, slots=True)
class EntityView:
    type: str
    id: str
    name: str
    metadata: dict[str, Any]
    total_memories: int
    created_at: datetime
    updated_at: datetime


def entity_field(entity_type: str) -> str:
    """The memory field that names an entity of this type (`user` → `user_id`); 400 for anything else."""
    if entity_type not in ENTITY_TYPES:
        raise ValidationError("Invalid entity type")
    return f"{entity_type}_id"


def entity_condition(entity_type: str, entity_id: str) -> f.Condition:
    """The filter that selects an entity's memories (400 for an unknown type or an id too long to be one)."""
    field = entity_field(entity_type)
    return f.Condition(field, "eq", checked_entity_id(entity_id, field))


class ProjectEntities:
    def __init__(self, memories: ProjectMemories, clock: Callable[[], datetime] = now) -> None:
        self._memories = memories
        self._clock = clock

    def listed(self, project_id: str) -> list[EntityView]:
        """Every entity of the project, by type then id."""
        found: dict[tuple[str, str], EntityView] = {
            (c.type.value, c.id): EntityView(c.type.value, c.id, c.id, {}, c.total_memories, c.created_at, c.updated_at)
            for c in self._memories.engine(project_id).store.count_by_entity()
        }
        for entity in self._memories.store.entities_of_project(project_id):
            counted = found.get((entity.type, entity.entity_id))
            found[entity.type, entity.entity_id] = EntityView(
                entity.type,
                entity.entity_id,
                entity.name,
                entity.metadata,
                counted.total_memories if counted else 0,
                min(entity.created_at, counted.created_at) if counted else entity.created_at,
                max(entity.updated_at, counted.updated_at) if counted else entity.updated_at,
            )
        return [found[k] for k in sorted(found)]

    def one(self, project_id: str, entity_type: str, entity_id: str) -> EntityView | None:
        records = self._memories.engine(project_id).get_all(
            entity_condition(entity_type, entity_id), top_k=None, show_expired=True
        )
        explicit = next(
            (
                e
                for e in self._memories.store.entities_of_project(project_id)
                if (e.type, e.entity_id) == (entity_type, entity_id)
            ),
            None,
        )
        if not records and explicit is None:
            return None
        moments = [r.created_at for r in records] + ([explicit.created_at] if explicit else [])
        changes = [r.updated_at for r in records] + ([explicit.updated_at] if explicit else [])
        return EntityView(
            entity_type,
            entity_id,
            explicit.name if explicit else entity_id,
            explicit.metadata if explicit else {},
            len(records),
            min(moments),
            max(changes),
        )

    def create(
        self, project_id: str, entity_type: str, entity_id: Any, name: Any = None, metadata: Any = None
    ) -> ProjectEntity:
        field = entity_field(entity_type)
        if not isinstance(entity_id, str) or not entity_id.strip():
            raise ValidationError(f"{field} is required.")
        checked_entity_id(entity_id.strip(), field)
        if name is not None and not isinstance(name, str):
            raise ValidationError("name must be a string.")
        if metadata is not None and not isinstance(metadata, dict):
            raise ValidationError("metadata must be a JSON object.")
        moment = self._clock()
        entity = ProjectEntity(
            project_id, entity_type, entity_id.strip(), name or entity_id.strip(), metadata or {}, moment, moment
        )
        if not self._memories.store.add_entity(entity):
            raise ConflictError(f"The {entity_type} {entity.entity_id!r} already exists in this project.")
        return entity

    def forget(self, project_id: str, entity_type: str, entity_id: str) -> bool:
        """Delete the entity's record (its memories are deleted by the caller); True when there was one."""
        entity_field(entity_type)
        return self._memories.store.delete_entity(project_id, entity_type, entity_id)
