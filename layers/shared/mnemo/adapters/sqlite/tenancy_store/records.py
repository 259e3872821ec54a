"""A project's records beside its memories, in the main SQLite file (mnemo.ports.tenancy_store.ProjectRecordStore):
memory exports, feedback on memories, and the project's counters."""

from __future__ import annotations

import json
from typing import Any

from mnemo.adapters.sqlite.tenancy_store.rows import EXPORT_COLUMNS, export_of, export_row, placeholders
from mnemo.adapters.sqlite.tenancy_store.tables import TenancyTables
from mnemo.domain.erasure import Erasure, scrubbed_export
from mnemo.domain.tenancy import Feedback, MemoryExport
from mnemo.domain.timefmt import from_iso, iso


class SqliteProjectRecordStore(TenancyTables):
    def save_export(self, export: MemoryExport) -> None:
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO platform_exports ({EXPORT_COLUMNS}) VALUES ({placeholders(EXPORT_COLUMNS)})",
                export_row(export),
            )

    def get_export(self, project_id: str, export_id: str) -> MemoryExport | None:
        row = self._db.read().execute(
            f"SELECT {EXPORT_COLUMNS} FROM platform_exports WHERE project_id = ? AND id = ?", (project_id, export_id)
        )
        return export_of(row.fetchone())

    def latest_export(self, project_id: str, filters: dict[str, Any] | None = None) -> MemoryExport | None:
        rows = self._db.read().execute(
            "SELECT id, filters FROM platform_exports WHERE project_id = ? ORDER BY seq DESC", (project_id,)
        )
        for export_id, stored in rows:
            if filters is None or json.loads(stored) == filters:
                return self.get_export(project_id, export_id)
        return None

    def erase_from_exports(self, project_id: str, erasure: Erasure) -> int:
        rows = self._db.read().execute(
            f"SELECT {EXPORT_COLUMNS} FROM platform_exports WHERE project_id = ? ORDER BY seq", (project_id,)
        )
        changed = [
            (json.dumps(clean.result), clean.id)
            for export in (export_of(row) for row in rows)
            if export is not None and (clean := scrubbed_export(export, erasure)) is not None
        ]
        if changed:
            with self._db.write() as conn:
                conn.executemany("UPDATE platform_exports SET result = ? WHERE id = ?", changed)
        return len(changed)

    def save_feedback(self, feedback: Feedback) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO platform_feedback (project_id, memory_id, feedback, reason, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(project_id, memory_id) DO UPDATE SET "
                "feedback = excluded.feedback, reason = excluded.reason, updated_at = excluded.updated_at",
                (feedback.project_id, feedback.memory_id, feedback.feedback, feedback.reason, iso(feedback.updated_at)),
            )

    def get_feedback(self, project_id: str, memory_id: str) -> Feedback | None:
        row = (
            self._db.read()
            .execute(
                "SELECT memory_id, project_id, feedback, reason, updated_at FROM platform_feedback "
                "WHERE project_id = ? AND memory_id = ?",
                (project_id, memory_id),
            )
            .fetchone()
        )
        return Feedback(row[0], row[1], row[2], row[3], from_iso(row[4])) if row else None

    def bump_counter(self, project_id: str, name: str, by: int = 1) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO platform_counters (project_id, name, value) VALUES (?, ?, ?) "
                "ON CONFLICT(project_id, name) DO UPDATE SET value = value + excluded.value",
                (project_id, name, by),
            )

    def counters(self, project_id: str) -> dict[str, int]:
        rows = self._db.read().execute("SELECT name, value FROM platform_counters WHERE project_id = ?", (project_id,))
        return {r[0]: int(r[1]) for r in rows}
