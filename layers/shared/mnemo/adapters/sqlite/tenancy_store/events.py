"""The platform's events in the main SQLite file (mnemo.ports.tenancy_store.EventStore), and the outbox of the
ingest jobs' ends (mnemo.ports.change_outbox): when `update_event` stores an asynchronous add that has just succeeded
or failed, the job's webhook event (`job_event`) is written in the same transaction, in `platform_outbox` (not
`outbox`: the self-hosted memory store of the same file has a table of that name, without a namespace column).

`update_event` follows the status rule of the port in its `WHERE`: the stored event is unfinished, or already at
the status written (an ended event takes more results, never another status), so a worker's progress write cannot
undo a cancel that landed between its read and its write."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from mnemo.adapters.sqlite.tenancy_store.rows import (
    EVENT_COLUMNS,
    event_of,
    event_row,
    optional_iso,
    placeholders,
    usage_json,
)
from mnemo.adapters.sqlite.tenancy_store.tables import TenancyTables
from mnemo.domain.erasure import Erasure, scrubbed_event
from mnemo.domain.tenancy import PlatformEvent
from mnemo.domain.timefmt import from_iso, iso
from mnemo.domain.webhooks import OutboundEvent, job_event

_CHUNK = 500


class SqliteEventStore(TenancyTables):
    def save_event(self, event: PlatformEvent) -> None:
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO platform_events ({EVENT_COLUMNS}) VALUES ({placeholders(EVENT_COLUMNS)}) "
                "ON CONFLICT(id) DO UPDATE SET "
                "status = excluded.status, results = excluded.results, error = excluded.error, "
                "updated_at = excluded.updated_at, started_at = excluded.started_at, "
                "completed_at = excluded.completed_at, attempts = excluded.attempts, llm_usage = excluded.llm_usage",
                event_row(event),
            )

    def update_event(self, event: PlatformEvent) -> bool:
        outbound = job_event(event)
        with self._db.write() as conn:
            changed = conn.execute(
                "UPDATE platform_events SET status = ?, results = ?, error = ?, updated_at = ?, started_at = ?, "
                "completed_at = ?, attempts = ?, llm_usage = ? WHERE id = ? AND project_id = ? "
                "AND (status IN ('PENDING', 'RUNNING') OR status = ?)",
                (
                    event.status.value,
                    json.dumps(event.results),
                    event.error,
                    iso(event.updated_at),
                    optional_iso(event.started_at),
                    optional_iso(event.completed_at),
                    event.attempts,
                    usage_json(event.llm_usage),
                    event.id,
                    event.project_id,
                    event.status.value,
                ),
            ).rowcount
            wrote = bool(changed) and outbound is not None and _write_outbox(conn, outbound)
        if wrote:
            self._notify()
        return bool(changed)

    def get_event(self, project_id: str, event_id: str) -> PlatformEvent | None:
        row = self._db.read().execute(
            f"SELECT {EVENT_COLUMNS} FROM platform_events WHERE project_id = ? AND id = ?", (project_id, event_id)
        )
        return event_of(row.fetchone())

    def events_of_project(self, project_id: str, limit: int, offset: int) -> list[PlatformEvent]:
        rows = self._db.read().execute(
            f"SELECT {EVENT_COLUMNS} FROM platform_events WHERE project_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
            (project_id, limit, offset),
        )
        return [e for e in (event_of(r) for r in rows) if e is not None]

    def count_events(self, project_id: str, event_type: str | None = None) -> int:
        sql = "SELECT COUNT(*) FROM platform_events WHERE project_id = ?"
        params: list[Any] = [project_id]
        if event_type is not None:
            sql += " AND event_type = ?"
            params.append(event_type)
        return int(self._db.read().execute(sql, params).fetchone()[0])

    def unfinished_events(self) -> list[PlatformEvent]:
        rows = self._db.read().execute(
            f"SELECT {EVENT_COLUMNS} FROM platform_events WHERE status IN ('PENDING', 'RUNNING') ORDER BY seq"
        )
        return [e for e in (event_of(r) for r in rows) if e is not None]

    def erase_from_events(self, project_id: str, erasure: Erasure) -> int:
        rows = self._db.read().execute(
            f"SELECT {EVENT_COLUMNS} FROM platform_events WHERE project_id = ? ORDER BY seq", (project_id,)
        )
        changed: list[tuple[str, str, str]] = []
        for row in rows:
            if not erasure.named_in(row[5]):  # its results name none of them: no parsing
                continue
            event = event_of(row)
            clean = None if event is None else scrubbed_event(event, erasure)
            if clean is not None:
                changed.append((json.dumps(clean.payload), json.dumps(clean.results), clean.id))
        if changed:
            with self._db.write() as conn:
                conn.executemany("UPDATE platform_events SET payload = ?, results = ? WHERE id = ?", changed)
        return len(changed)

    # ---- the outbox of ingest jobs' ends ----

    def pending(self, limit: int) -> list[OutboundEvent]:
        """The oldest unpublished job events, oldest first, each with its project as its namespace."""
        if limit <= 0:
            return []
        rows = self._db.read().execute(
            "SELECT position, id, type, namespace, payload, occurred_at FROM platform_outbox ORDER BY position LIMIT ?",
            (limit,),
        )
        return [OutboundEvent(r[1], r[2], r[3], json.loads(r[4]), from_iso(r[5]), position=r[0]) for r in rows]

    def published(self, event_ids: Sequence[str]) -> None:
        ids = list(event_ids)
        if not ids:
            return
        with self._db.write() as conn:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                conn.execute(f"DELETE FROM platform_outbox WHERE id IN ({', '.join('?' * len(chunk))})", chunk)


def _write_outbox(conn: sqlite3.Connection, event: OutboundEvent) -> bool:
    """The event into the outbox, once: the same job's same end written again is the same event (its id)."""
    cursor = conn.execute(
        "INSERT OR IGNORE INTO platform_outbox (id, namespace, type, payload, occurred_at) VALUES (?, ?, ?, ?, ?)",
        (event.id, event.namespace, event.type, json.dumps(dict(event.payload)), iso(event.occurred_at)),
    )
    return bool(cursor.rowcount)
