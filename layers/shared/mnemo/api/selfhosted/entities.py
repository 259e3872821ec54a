"""Self-hosted entities: GET /entities (counts from the store) and DELETE /entities/{type}/{id} (admin)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from mnemo.api.dependencies import EntityServiceDep
from mnemo.api.limits import EntityId, entity_types
from mnemo.api.responses import errors
from mnemo.api.routing import TypedRoute
from mnemo.api.security import authenticated, require_admin
from mnemo.api.selfhosted.responses import EntityDeleted, EntitySummary
from mnemo.domain.entities import SELF_HOSTED_ENTITY_TYPES

router = APIRouter(
    route_class=TypedRoute,
    prefix="/entities",
    tags=["entities"],
    dependencies=[Depends(authenticated)],
    responses=errors(401),
)
SelfHostedEntityType = Annotated[str, entity_types(*(kind.value for kind in SELF_HOSTED_ENTITY_TYPES))]


@router.get("", summary="Every user, agent and run that has memories, with its memory count")
def list_entities(entities: EntityServiceDep) -> list[EntitySummary]:
    return [EntitySummary.of(e) for e in entities.list()]


@router.delete(
    "/{entity_type}/{entity_id}",
    summary="Delete every memory of a user, agent or run",
    dependencies=[Depends(require_admin)],
    responses=errors(400, 403),
)
def delete_entity(entity_type: SelfHostedEntityType, entity_id: EntityId, entities: EntityServiceDep) -> EntityDeleted:
    deleted = entities.delete(entity_type, entity_id)
    return EntityDeleted(message="Entity deleted", deleted_memories=deleted)
