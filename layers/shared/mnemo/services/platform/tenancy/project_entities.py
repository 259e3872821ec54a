"""A project's entities: the users, agents, apps and runs that own its memories, and those created explicitly
(POST /v1/users/ …, with a display name and metadata) before or beside any memory of theirs. An entity is
listed once, whichever way it exists; deleting it deletes its memories and its record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mnemo.domain import filters as f
from mnemo.domain.entity_ids import checked_entity_id
from mnemo.domain.json_shape import json_problem
from mnemo.domain.memory import now
from mnemo.domain.tenancy import ProjectEntity
from mnemo.errors import ConflictError, NotFoundError, ValidationError
from mnemo.ports.tenancy_store import EntityStore
from mnemo.services.commands import check_size, json_size
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.memories.project_memory import Deleted, delete_matching
from mnemo.services.platform.tenancy.events import DELETE, EventService

ENTITY_TYPES = ("user", "agent", "app", "run")
ENTITY_NOT_FOUND = "Entity not found."
MAX_ENTITY_NAME = 255


@dataclass(frozen=True, slots=True)
class EntityView:
    type: str
    id: str
    name: str
    metadata: dict[str, Any]
    total_memories: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class FilterValues:
    """What a project's memories can be filtered by: the categories and the entities in use."""

    categories: list[str]
    entities: list[EntityView]


def entity_field(entity_type: str) -> str:
    """The memory field that names an entity of this type (`user` → `user_id`); 400 for anything else."""
    if entity_type not in ENTITY_TYPES:
        raise ValidationError("Invalid entity type")
    return f"{entity_type}_id"


def entity_condition(entity_type: str, entity_id: str) -> f.Condition:
    """The filter that selects an entity's memories (400 for an unknown type or an id too long to be one)."""
    field = entity_field(entity_type)
    return f.Condition(field, "eq", checked_entity_id(entity_id, field))


class ProjectEntityService:
    def __init__(
        self,
        namespaces: NamespaceMemoryServices,
        store: EntityStore,
        events: EventService,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self._namespaces = namespaces
        self._store = store
        self._events = events
        self._clock = clock

    def listed(self, project_id: str) -> list[EntityView]:
        """Every entity of the project, by type then id."""
        found: dict[tuple[str, str], EntityView] = {
            (c.type.value, c.id): EntityView(c.type.value, c.id, c.id, {}, c.total_memories, c.created_at, c.updated_at)
            for c in self._namespaces.memory_service(project_id).entity_counts()
        }
        for entity in self._store.entities_of_project(project_id):
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

    def one(self, project_id: str, entity_type: str, entity_id: str) -> EntityView:
        records = self._namespaces.memory_service(project_id).get_all(
            entity_condition(entity_type, entity_id), top_k=None, show_expired=True
        )
        explicit = next(
            (
                e
                for e in self._store.entities_of_project(project_id)
                if (e.type, e.entity_id) == (entity_type, entity_id)
            ),
            None,
        )
        if not records and explicit is None:
            raise NotFoundError(ENTITY_NOT_FOUND)
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
        if not isinstance(entity_id, str) or not entity_id:
            raise ValidationError(f"{field} is required.")
        checked_entity_id(entity_id, field)
        if name is not None and (not isinstance(name, str) or len(name) > MAX_ENTITY_NAME):
            raise ValidationError(f"name must be a string of at most {MAX_ENTITY_NAME} characters.")
        if metadata is not None and not isinstance(metadata, dict):
            raise ValidationError("metadata must be a JSON object.")
        problem = json_problem(metadata, "metadata") if metadata else None
        if problem is None and metadata:
            check_size(json_size(metadata), "The entity's metadata is {size} bytes; at most {limit} are kept.")
        if problem is not None:
            raise ValidationError(f"{problem}.")
        moment = self._clock()
        entity = ProjectEntity(project_id, entity_type, entity_id, name or entity_id, metadata or {}, moment, moment)
        if not self._store.add_entity(entity):
            raise ConflictError(f"The {entity_type} {entity.entity_id!r} already exists in this project.")
        return entity

    def delete(self, project_id: str, entity_type: str, entity_id: str) -> Deleted:
        """Every memory of the entity (each with its DELETE history entry) and its record, as one DELETE event.

        An entity with nothing left is deleted too (0 memories), not a 404: a memory of several entities (alice's
        in the app web) goes with whichever of them is deleted first, and the clients' reset (`delete_users()`,
        `deleteUsers()`) deletes each entity `users()` listed, one after the other — it must not stop at one whose
        memories an earlier delete took."""
        condition = entity_condition(entity_type, entity_id)
        service = self._namespaces.memory_service(project_id)
        deleted = delete_matching(service, condition)
        self._store.delete_entity(project_id, entity_type, entity_id)
        results = [{"id": memory_id, "event": "DELETE"} for memory_id in deleted]
        event_id = self._events.record(project_id, DELETE, {condition.field: entity_id}, results)
        return Deleted(event_id, len(deleted))

    def filter_values(self, project_id: str) -> FilterValues:
        """The categories of the project's memories (expired ones too) and its entities."""
        records = self._namespaces.memory_service(project_id).get_all(f.And(()), top_k=None, show_expired=True)
        categories = sorted({c for record in records for c in record.categories})
        return FilterValues(categories, self.listed(project_id))
