"""The users of a platform project as profiles see them: who the project knows, and a user's memories.

A user is known by a memory of theirs (an expired one too) or by an entity record made for them; profiles are
kept for users only, so every entity id that reaches here passes the id rule as a `user_id` first."""

from __future__ import annotations

from mnemo.domain.entity_ids import checked_entity_id
from mnemo.domain.memory import MemoryRecord
from mnemo.domain.profiles import ENTITY_USER
from mnemo.errors import ValidationError
from mnemo.ports.tenancy_store import EntityStore
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.tenancy.project_entities import entity_condition


def profile_user(entity_type: str, entity_id: str) -> str:
    """The user id an entity names (400: not a user, or not an id)."""
    if entity_type != ENTITY_USER:
        raise ValidationError("Unsupported entity type: profiles are for users only.")
    return checked_entity_id(entity_id, "user_id")


class ProjectUsers:
    def __init__(self, namespaces: NamespaceMemoryServices, entities: EntityStore) -> None:
        self._namespaces = namespaces
        self._entities = entities

    def memories(self, project_id: str, user_id: str) -> list[MemoryRecord]:
        """The user's memories (not expired), newest first."""
        service = self._namespaces.memory_service(project_id)
        records = service.get_all(entity_condition(ENTITY_USER, user_id), top_k=None)
        records.sort(key=lambda r: r.created_at, reverse=True)
        return records

    def known(self, project_id: str, user_id: str) -> bool:
        """Whether the project has seen the user: a memory of theirs (expired ones too), or an entity record."""
        service = self._namespaces.memory_service(project_id)
        found = service.get_all(entity_condition(ENTITY_USER, user_id), top_k=1, show_expired=True)
        return bool(found) or self._explicit(project_id, user_id)

    def all(self, project_id: str) -> list[str]:
        """Every user the project knows, sorted."""
        counted = {
            c.id for c in self._namespaces.memory_service(project_id).entity_counts() if c.type.value == ENTITY_USER
        }
        explicit = {e.entity_id for e in self._entities.entities_of_project(project_id) if e.type == ENTITY_USER}
        return sorted(counted | explicit)

    def _explicit(self, project_id: str, user_id: str) -> bool:
        return any(
            (e.type, e.entity_id) == (ENTITY_USER, user_id) for e in self._entities.entities_of_project(project_id)
        )
