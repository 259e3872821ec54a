"""The entities a project created explicitly, on the accounts table (mnemo.ports.tenancy_store.EntityStore):
`ENTITY#<type>#<id>` items in the project's partition, so one Query lists them by type, then id.
"""

from __future__ import annotations

from mnemo.adapters.dynamodb.operations import fitting
from mnemo.adapters.dynamodb.tenancy_store.items import entity_item, entity_of
from mnemo.adapters.dynamodb.tenancy_store.keys import ENTITY, project_entity_key, project_pk
from mnemo.adapters.dynamodb.tenancy_store.table import TenancyTable
from mnemo.domain.tenancy import ProjectEntity


class DynamoEntityStore(TenancyTable):
    def add_entity(self, entity: ProjectEntity) -> bool:
        item = fitting(entity_item(entity))
        return (
            self._ops.conditionally("put_item", Item=item, ConditionExpression="attribute_not_exists(pk)") is not None
        )

    def entities_of_project(self, project_id: str) -> list[ProjectEntity]:
        """The sort key orders them by type, then id."""
        return [entity_of(item) for item in self._ops.partition(project_pk(project_id), ENTITY)]

    def delete_entity(self, project_id: str, entity_type: str, entity_id: str) -> bool:
        return self._ops.delete(project_entity_key(project_id, entity_type, entity_id))
