"""The entities a project's memories name, in the main SQLite file (mnemo.ports.tenancy_store.EntityStore): one row
per (project, type, id), made by the first add that names it."""

from __future__ import annotations

import json

from mnemo.adapters.sqlite.tenancy_store.tables import TenancyTables
from mnemo.domain.tenancy import ProjectEntity
from mnemo.domain.timefmt import from_iso, iso


class SqliteEntityStore(TenancyTables):
    def add_entity(self, entity: ProjectEntity) -> bool:
        with self._db.write() as conn:
            cursor = conn.execute(
                "INSERT INTO platform_entities (project_id, type, entity_id, name, metadata, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (
                    entity.project_id,
                    entity.type,
                    entity.entity_id,
                    entity.name,
                    json.dumps(entity.metadata),
                    iso(entity.created_at),
                    iso(entity.updated_at),
                ),
            )
            return cursor.rowcount == 1

    def entities_of_project(self, project_id: str) -> list[ProjectEntity]:
        rows = self._db.read().execute(
            "SELECT project_id, type, entity_id, name, metadata, created_at, updated_at FROM platform_entities "
            "WHERE project_id = ? ORDER BY type, entity_id",
            (project_id,),
        )
        return [ProjectEntity(r[0], r[1], r[2], r[3], json.loads(r[4]), from_iso(r[5]), from_iso(r[6])) for r in rows]

    def delete_entity(self, project_id: str, entity_type: str, entity_id: str) -> bool:
        with self._db.write() as conn:
            cursor = conn.execute(
                "DELETE FROM platform_entities WHERE project_id = ? AND type = ? AND entity_id = ?",
                (project_id, entity_type, entity_id),
            )
            return cursor.rowcount == 1
