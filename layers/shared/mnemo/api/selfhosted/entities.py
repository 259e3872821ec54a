"""Self-hosted entities: GET /entities (counts from the store) and DELETE /entities/{type}/{id} (admin)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from mnemo.api.dependencies import Services
from mnemo.api.security import authenticated, require_admin
from mnemo.domain.entities import EntityCount
from mnemo.domain.timefmt import iso

router = APIRouter(prefix="/entities", tags=["entities"], dependencies=[Depends(authenticated)])


@router.get("", summary="Every user, agent and run that has memories, with its memory count")
def list_entities(services: Services) -> list[dict[str, Any]]:
    return [entity_view(e) for e in services.entities.list()]


@router.delete(
    "/{entity_type}/{entity_id}",
    summary="Delete every memory of a user, agent or run",
    dependencies=[Depends(require_admin)],
)
def delete_entity(entity_type: str, entity_id: str, services: Services) -> dict[str, Any]:
    deleted = services.entities.delete(entity_type, entity_id)
    return {"message": "Entity deleted", "deleted_memories": deleted}


def entity_view(entity: EntityCount) -> dict[str, Any]:
    return {
        "id": entity.id,
        "type": entity.type.value,
        "total_memories": entity.total_memories,
        "created_at": iso(entity.created_at),
        "updated_at": iso(entity.updated_at),
    }
