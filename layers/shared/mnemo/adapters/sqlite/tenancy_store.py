"""The SQLite store of platform tenancy (mnemo.ports.tenancy_store), in the same file as the accounts.

It is also the outbox of the ingest jobs' ends (mnemo.ports.change_outbox): when `update_event` stores an
asynchronous add that has just succeeded or failed, the job's webhook event (`job_event`) is written in the same
transaction, in `platform_outbox` (not `outbox`: the self-hosted memory store of the same file has a table of that
name, without a namespace column)."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from mnemo.adapters.sqlite import auth_epoch
from mnemo.adapters.sqlite.database import Database
from mnemo.domain.erasure import Erasure, scrubbed_event, scrubbed_export
from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.tenancy import (
    EventStatus,
    Feedback,
    Member,
    MemoryExport,
    Organization,
    PlatformEvent,
    PlatformUser,
    Project,
    ProjectEntity,
    ProjectKey,
    Role,
)
from mnemo.domain.timefmt import from_iso, iso
from mnemo.domain.webhooks import OutboundEvent, job_event

SCHEMA = """
CREATE TABLE IF NOT EXISTS platform_users (
    id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS platform_orgs (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS platform_org_members (
    org_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX IF NOT EXISTS platform_org_members_user ON platform_org_members(user_id);
CREATE TABLE IF NOT EXISTS platform_projects (
    id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
    custom_instructions TEXT, custom_categories TEXT NOT NULL DEFAULT '[]', multilingual INTEGER NOT NULL DEFAULT 0,
    decay INTEGER NOT NULL DEFAULT 0, is_default INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    reflection_enabled INTEGER NOT NULL DEFAULT 0, reflection_enabled_at TEXT,
    reflection_mode TEXT NOT NULL DEFAULT 'batch',
    agent_custom_instructions TEXT, memory_depth TEXT, usecase_setting TEXT, version TEXT
);
CREATE INDEX IF NOT EXISTS platform_projects_org ON platform_projects(org_id);
CREATE TABLE IF NOT EXISTS platform_project_members (
    project_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (project_id, user_id)
);
CREATE TABLE IF NOT EXISTS platform_keys (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL, user_id TEXT NOT NULL, label TEXT NOT NULL,
    key_prefix TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
    last_used_at TEXT, revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS platform_keys_project ON platform_keys(project_id);
CREATE TABLE IF NOT EXISTS platform_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
    event_type TEXT NOT NULL, status TEXT NOT NULL, payload TEXT NOT NULL, results TEXT NOT NULL,
    error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, started_at TEXT, completed_at TEXT,
    attempts INTEGER NOT NULL DEFAULT 0, llm_usage TEXT
);
CREATE INDEX IF NOT EXISTS platform_events_project ON platform_events(project_id, seq);
CREATE INDEX IF NOT EXISTS platform_events_status ON platform_events(status);
CREATE TABLE IF NOT EXISTS platform_exports (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
    schema TEXT NOT NULL, filters TEXT NOT NULL, instructions TEXT, result TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS platform_exports_project ON platform_exports(project_id, seq);
CREATE TABLE IF NOT EXISTS platform_feedback (
    project_id TEXT NOT NULL, memory_id TEXT NOT NULL, feedback TEXT, reason TEXT, updated_at TEXT NOT NULL,
    PRIMARY KEY (project_id, memory_id)
);
CREATE TABLE IF NOT EXISTS platform_entities (
    project_id TEXT NOT NULL, type TEXT NOT NULL, entity_id TEXT NOT NULL, name TEXT NOT NULL,
    metadata TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (project_id, type, entity_id)
);
CREATE TABLE IF NOT EXISTS platform_counters (
    project_id TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (project_id, name)
);
CREATE TABLE IF NOT EXISTS platform_outbox (
    position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, namespace TEXT NOT NULL,
    type TEXT NOT NULL, payload TEXT NOT NULL, occurred_at TEXT NOT NULL
);
"""

_PROJECT = (
    "id, org_id, name, description, custom_instructions, custom_categories, multilingual, decay, is_default, "
    "created_at, updated_at, reflection_enabled, reflection_enabled_at, reflection_mode, agent_custom_instructions, "
    "memory_depth, usecase_setting, version"
)
_ADDED_PROJECT_COLUMNS = (
    ("reflection_enabled", "INTEGER NOT NULL DEFAULT 0"),
    ("reflection_enabled_at", "TEXT"),
    ("reflection_mode", "TEXT NOT NULL DEFAULT 'batch'"),
    ("agent_custom_instructions", "TEXT"),
    ("memory_depth", "TEXT"),
    ("usecase_setting", "TEXT"),
    ("version", "TEXT"),
)
_KEY = "id, project_id, user_id, label, key_prefix, key_hash, created_at, last_used_at, revoked_at"
_EVENT = (
    "id, project_id, event_type, status, payload, results, error, created_at, updated_at, started_at, completed_at, "
    "attempts, llm_usage"
)
_EXPORT = "id, project_id, schema, filters, instructions, result, created_at"
_CHUNK = 500
_log = logging.getLogger(__name__)


def _opt(moment: datetime | None) -> str | None:
    return iso(moment) if moment is not None else None


def _from_opt(text: str | None) -> datetime | None:
    return from_iso(text) if text else None


class SqliteTenancyStore:
    """`on_outbox`: called after a transaction that wrote an ingest job's webhook event (a wake-up for whoever
    publishes them; its errors are logged, never raised into the write)."""

    def __init__(self, db: Database, *, on_outbox: Callable[[], None] | None = None) -> None:
        self._db = db
        self._on_outbox = on_outbox
        db.executescript(SCHEMA + auth_epoch.SCHEMA + auth_epoch.PLATFORM_TRIGGERS)
        columns = {row[1] for row in db.read().execute("PRAGMA table_info(platform_events)")}
        if "attempts" not in columns:  # a data dir from before events counted their attempts
            with db.write() as conn:
                conn.execute("ALTER TABLE platform_events ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0")
        if "llm_usage" not in columns:  # a data dir from before adds kept their LLM usage
            with db.write() as conn:
                conn.execute("ALTER TABLE platform_events ADD COLUMN llm_usage TEXT")
        projects = {row[1] for row in db.read().execute("PRAGMA table_info(platform_projects)")}
        with db.write() as conn:  # a data dir from before Dream's configuration or the clients' project settings
            for column, declaration in _ADDED_PROJECT_COLUMNS:
                if column not in projects:
                    conn.execute(f"ALTER TABLE platform_projects ADD COLUMN {column} {declaration}")

    # ---- users ----

    def user_by_email(self, email: str) -> PlatformUser | None:
        row = self._db.read().execute("SELECT id, email, created_at FROM platform_users WHERE email = ?", (email,))
        return _user(row.fetchone())

    def user_by_id(self, user_id: str) -> PlatformUser | None:
        row = self._db.read().execute("SELECT id, email, created_at FROM platform_users WHERE id = ?", (user_id,))
        return _user(row.fetchone())

    def add_user(self, user: PlatformUser) -> PlatformUser:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO platform_users (id, email, created_at) VALUES (?, ?, ?) ON CONFLICT(email) DO NOTHING",
                (user.id, user.email, iso(user.created_at)),
            )
            row = conn.execute("SELECT id, email, created_at FROM platform_users WHERE email = ?", (user.email,))
            stored = _user(row.fetchone())
        assert stored is not None
        return stored

    # ---- organizations ----

    def add_org(self, org: Organization, owner: PlatformUser) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO platform_orgs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (org.id, org.name, iso(org.created_at), iso(org.updated_at)),
            )
            self.set_org_member(org.id, owner, Role.OWNER)

    def get_org(self, org_id: str) -> Organization | None:
        row = self._db.read().execute(
            "SELECT id, name, created_at, updated_at FROM platform_orgs WHERE id = ?", (org_id,)
        )
        return _org(row.fetchone())

    def orgs_of(self, user_id: str) -> list[Organization]:
        rows = self._db.read().execute(
            "SELECT o.id, o.name, o.created_at, o.updated_at FROM platform_orgs o "
            "JOIN platform_org_members m ON m.org_id = o.id WHERE m.user_id = ? ORDER BY o.created_at, o.id",
            (user_id,),
        )
        return [o for o in (_org(r) for r in rows) if o is not None]

    def delete_org(self, org_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM platform_org_members WHERE org_id = ?", (org_id,))
            conn.execute("DELETE FROM platform_orgs WHERE id = ?", (org_id,))

    def org_members(self, org_id: str) -> list[Member]:
        return self._members("platform_org_members", "org_id", org_id)

    def set_org_member(self, org_id: str, user: PlatformUser, role: Role) -> None:
        self._set_member("platform_org_members", "org_id", org_id, user, role)

    def remove_org_member(self, org_id: str, user_id: str) -> bool:
        return self._remove_member("platform_org_members", "org_id", org_id, user_id)

    # ---- projects ----

    def add_project(self, project: Project, owner: PlatformUser) -> None:
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO platform_projects ({_PROJECT}) VALUES ({', '.join('?' * _PROJECT.count(','))}, ?)",
                _row(project),
            )
            self.set_project_member(project.id, owner, Role.OWNER)

    def get_project(self, project_id: str) -> Project | None:
        row = self._db.read().execute(f"SELECT {_PROJECT} FROM platform_projects WHERE id = ?", (project_id,))
        return _project(row.fetchone())

    def projects_of_org(self, org_id: str) -> list[Project]:
        rows = self._db.read().execute(
            f"SELECT {_PROJECT} FROM platform_projects WHERE org_id = ? ORDER BY created_at, id", (org_id,)
        )
        return [p for p in (_project(r) for r in rows) if p is not None]

    def save_project(self, project: Project) -> None:
        assignments = ", ".join(f"{c.strip()} = ?" for c in _PROJECT.split(","))
        with self._db.write() as conn:
            conn.execute(f"UPDATE platform_projects SET {assignments} WHERE id = ?", (*_row(project), project.id))

    def delete_project(self, project_id: str) -> None:
        with self._db.write() as conn:
            for table in (
                "platform_project_members",
                "platform_keys",
                "platform_events",
                "platform_exports",
                "platform_feedback",
                "platform_entities",
                "platform_counters",
            ):
                conn.execute(f"DELETE FROM {table} WHERE project_id = ?", (project_id,))
            conn.execute("DELETE FROM platform_projects WHERE id = ?", (project_id,))

    def project_members(self, project_id: str) -> list[Member]:
        return self._members("platform_project_members", "project_id", project_id)

    def set_project_member(self, project_id: str, user: PlatformUser, role: Role) -> None:
        self._set_member("platform_project_members", "project_id", project_id, user, role)

    def remove_project_member(self, project_id: str, user_id: str) -> bool:
        return self._remove_member("platform_project_members", "project_id", project_id, user_id)

    # ---- members (both kinds) ----

    def _members(self, table: str, column: str, scope_id: str) -> list[Member]:
        rows = self._db.read().execute(
            f"SELECT m.{column}, u.id, u.email, u.created_at, m.role FROM {table} m "
            f"JOIN platform_users u ON u.id = m.user_id WHERE m.{column} = ? ORDER BY m.seq",
            (scope_id,),
        )
        return [Member(r[0], PlatformUser(r[1], r[2], from_iso(r[3])), Role(r[4])) for r in rows]

    def _set_member(self, table: str, column: str, scope_id: str, user: PlatformUser, role: Role) -> None:
        with self._db.write() as conn:
            seq = conn.execute(f"SELECT COALESCE(MAX(seq), 0) + 1 FROM {table}").fetchone()[0]
            conn.execute(
                f"INSERT INTO {table} ({column}, user_id, role, seq) VALUES (?, ?, ?, ?) "
                f"ON CONFLICT({column}, user_id) DO UPDATE SET role = excluded.role",
                (scope_id, user.id, role.value, seq),
            )

    def _remove_member(self, table: str, column: str, scope_id: str, user_id: str) -> bool:
        with self._db.write() as conn:
            cursor = conn.execute(f"DELETE FROM {table} WHERE {column} = ? AND user_id = ?", (scope_id, user_id))
            return cursor.rowcount > 0

    # ---- project keys ----

    def add_key(self, key: ProjectKey) -> None:
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO platform_keys ({_KEY}) VALUES ({', '.join('?' * 9)})",
                (
                    key.id,
                    key.project_id,
                    key.user_id,
                    key.label,
                    key.key_prefix,
                    key.key_hash,
                    iso(key.created_at),
                    _opt(key.last_used_at),
                    _opt(key.revoked_at),
                ),
            )

    def key_by_hash(self, key_hash: str) -> ProjectKey | None:
        row = self._db.read().execute(
            f"SELECT {_KEY} FROM platform_keys WHERE key_hash = ? AND revoked_at IS NULL", (key_hash,)
        )
        return _key(row.fetchone())

    def keys_of_project(self, project_id: str) -> list[ProjectKey]:
        rows = self._db.read().execute(
            f"SELECT {_KEY} FROM platform_keys WHERE project_id = ? ORDER BY created_at, id", (project_id,)
        )
        return [k for k in (_key(r) for r in rows) if k is not None]

    def revoke_key(self, project_id: str, key_id: str, at: datetime) -> bool:
        with self._db.write() as conn:
            cursor = conn.execute(
                "UPDATE platform_keys SET revoked_at = ? WHERE project_id = ? AND id = ? AND revoked_at IS NULL",
                (iso(at), project_id, key_id),
            )
            return cursor.rowcount > 0

    def auth_epoch(self) -> int:
        return auth_epoch.read_epoch(self._db)

    def touch_key(self, key_id: str, at: datetime) -> None:
        with self._db.write() as conn:
            conn.execute("UPDATE platform_keys SET last_used_at = ? WHERE id = ?", (iso(at), key_id))

    # ---- events ----

    def save_event(self, event: PlatformEvent) -> None:
        values = (
            event.id,
            event.project_id,
            event.event_type,
            event.status.value,
            json.dumps(event.payload),
            json.dumps(event.results),
            event.error,
            iso(event.created_at),
            iso(event.updated_at),
            _opt(event.started_at),
            _opt(event.completed_at),
            event.attempts,
            _usage_json(event.llm_usage),
        )
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO platform_events ({_EVENT}) VALUES ({', '.join('?' * 13)}) ON CONFLICT(id) DO UPDATE SET "
                "status = excluded.status, results = excluded.results, error = excluded.error, "
                "updated_at = excluded.updated_at, started_at = excluded.started_at, "
                "completed_at = excluded.completed_at, attempts = excluded.attempts, llm_usage = excluded.llm_usage",
                values,
            )

    def update_event(self, event: PlatformEvent) -> bool:
        outbound = job_event(event)
        with self._db.write() as conn:
            changed = conn.execute(
                "UPDATE platform_events SET status = ?, results = ?, error = ?, updated_at = ?, started_at = ?, "
                "completed_at = ?, attempts = ?, llm_usage = ? WHERE id = ? AND project_id = ?",
                (
                    event.status.value,
                    json.dumps(event.results),
                    event.error,
                    iso(event.updated_at),
                    _opt(event.started_at),
                    _opt(event.completed_at),
                    event.attempts,
                    _usage_json(event.llm_usage),
                    event.id,
                    event.project_id,
                ),
            ).rowcount
            wrote = bool(changed) and outbound is not None and _write_outbox(conn, outbound)
        if wrote:
            self._notify()
        return bool(changed)

    # ---- the outbox of ingest jobs' ends ----

    def _notify(self) -> None:
        if self._on_outbox is None:
            return
        try:
            self._on_outbox()
        except Exception:  # a wake-up that fails must not fail a write already committed
            _log.exception("the outbox wake-up of the tenancy store failed")

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

    def get_event(self, project_id: str, event_id: str) -> PlatformEvent | None:
        row = self._db.read().execute(
            f"SELECT {_EVENT} FROM platform_events WHERE project_id = ? AND id = ?", (project_id, event_id)
        )
        return _event(row.fetchone())

    def events_of_project(self, project_id: str, limit: int, offset: int) -> list[PlatformEvent]:
        rows = self._db.read().execute(
            f"SELECT {_EVENT} FROM platform_events WHERE project_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
            (project_id, limit, offset),
        )
        return [e for e in (_event(r) for r in rows) if e is not None]

    def count_events(self, project_id: str, event_type: str | None = None) -> int:
        sql = "SELECT COUNT(*) FROM platform_events WHERE project_id = ?"
        params: list[Any] = [project_id]
        if event_type is not None:
            sql += " AND event_type = ?"
            params.append(event_type)
        return int(self._db.read().execute(sql, params).fetchone()[0])

    def unfinished_events(self) -> list[PlatformEvent]:
        rows = self._db.read().execute(
            f"SELECT {_EVENT} FROM platform_events WHERE status IN ('PENDING', 'RUNNING') ORDER BY seq"
        )
        return [e for e in (_event(r) for r in rows) if e is not None]

    def erase_from_events(self, project_id: str, erasure: Erasure) -> int:
        rows = self._db.read().execute(
            f"SELECT {_EVENT} FROM platform_events WHERE project_id = ? ORDER BY seq", (project_id,)
        )
        changed: list[tuple[str, str, str]] = []
        for row in rows:
            if not erasure.named_in(row[5]):  # its results name none of them: no parsing
                continue
            event = _event(row)
            clean = None if event is None else scrubbed_event(event, erasure)
            if clean is not None:
                changed.append((json.dumps(clean.payload), json.dumps(clean.results), clean.id))
        if changed:
            with self._db.write() as conn:
                conn.executemany("UPDATE platform_events SET payload = ?, results = ? WHERE id = ?", changed)
        return len(changed)

    # ---- exports, feedback, counters ----

    def erase_from_exports(self, project_id: str, erasure: Erasure) -> int:
        rows = self._db.read().execute(
            f"SELECT {_EXPORT} FROM platform_exports WHERE project_id = ? ORDER BY seq", (project_id,)
        )
        changed = [
            (json.dumps(clean.result), clean.id)
            for export in (_export(row) for row in rows)
            if export is not None and (clean := scrubbed_export(export, erasure)) is not None
        ]
        if changed:
            with self._db.write() as conn:
                conn.executemany("UPDATE platform_exports SET result = ? WHERE id = ?", changed)
        return len(changed)

    def save_export(self, export: MemoryExport) -> None:
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO platform_exports ({_EXPORT}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    export.id,
                    export.project_id,
                    json.dumps(export.schema),
                    json.dumps(export.filters),
                    export.instructions,
                    json.dumps(export.result),
                    iso(export.created_at),
                ),
            )

    def get_export(self, project_id: str, export_id: str) -> MemoryExport | None:
        row = self._db.read().execute(
            f"SELECT {_EXPORT} FROM platform_exports WHERE project_id = ? AND id = ?", (project_id, export_id)
        )
        return _export(row.fetchone())

    def latest_export(self, project_id: str, filters: dict[str, Any] | None = None) -> MemoryExport | None:
        rows = self._db.read().execute(
            "SELECT id, filters FROM platform_exports WHERE project_id = ? ORDER BY seq DESC", (project_id,)
        )
        for export_id, stored in rows:
            if filters is None or json.loads(stored) == filters:
                return self.get_export(project_id, export_id)
        return None

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


def _write_outbox(conn: sqlite3.Connection, event: OutboundEvent) -> bool:
    """The event into the outbox, once: the same job's same end written again is the same event (its id)."""
    cursor = conn.execute(
        "INSERT OR IGNORE INTO platform_outbox (id, namespace, type, payload, occurred_at) VALUES (?, ?, ?, ?, ?)",
        (event.id, event.namespace, event.type, json.dumps(dict(event.payload)), iso(event.occurred_at)),
    )
    return bool(cursor.rowcount)


def _user(row: Sequence[Any] | None) -> PlatformUser | None:
    return PlatformUser(row[0], row[1], from_iso(row[2])) if row else None


def _org(row: Sequence[Any] | None) -> Organization | None:
    return Organization(row[0], row[1], from_iso(row[2]), from_iso(row[3])) if row else None


def _row(p: Project) -> tuple[Any, ...]:
    return (
        p.id,
        p.org_id,
        p.name,
        p.description,
        p.custom_instructions,
        json.dumps(list(p.custom_categories)),
        int(p.multilingual),
        int(p.decay),
        int(p.is_default),
        iso(p.created_at),
        iso(p.updated_at),
        int(p.reflection_enabled),
        iso(p.reflection_enabled_at) if p.reflection_enabled_at else None,
        p.reflection_mode,
        p.agent_custom_instructions,
        p.memory_depth,
        p.usecase_setting,
        p.version,
    )


def _project(row: Sequence[Any] | None) -> Project | None:
    if not row:
        return None
    return Project(
        id=row[0],
        org_id=row[1],
        name=row[2],
        description=row[3],
        custom_instructions=row[4],
        custom_categories=tuple(json.loads(row[5])),
        multilingual=bool(row[6]),
        decay=bool(row[7]),
        is_default=bool(row[8]),
        created_at=from_iso(row[9]),
        updated_at=from_iso(row[10]),
        reflection_enabled=bool(row[11]),
        reflection_enabled_at=from_iso(row[12]) if row[12] else None,
        reflection_mode=row[13],
        agent_custom_instructions=row[14],
        memory_depth=row[15],
        usecase_setting=row[16],
        version=row[17],
    )


def _key(row: Sequence[Any] | None) -> ProjectKey | None:
    if not row:
        return None
    return ProjectKey(
        id=row[0],
        project_id=row[1],
        user_id=row[2],
        label=row[3],
        key_prefix=row[4],
        key_hash=row[5],
        created_at=from_iso(row[6]),
        last_used_at=_from_opt(row[7]),
        revoked_at=_from_opt(row[8]),
    )


def _event(row: Sequence[Any] | None) -> PlatformEvent | None:
    if not row:
        return None
    return PlatformEvent(
        id=row[0],
        project_id=row[1],
        event_type=row[2],
        status=EventStatus(row[3]),
        payload=json.loads(row[4]),
        results=json.loads(row[5]),
        error=row[6],
        created_at=from_iso(row[7]),
        updated_at=from_iso(row[8]),
        started_at=_from_opt(row[9]),
        completed_at=_from_opt(row[10]),
        attempts=int(row[11]),
        llm_usage=LLMUsage.from_json(json.loads(row[12])) if row[12] else None,
    )


def _usage_json(usage: LLMUsage | None) -> str | None:
    return None if usage is None else json.dumps(usage.to_json())


def _export(row: Sequence[Any] | None) -> MemoryExport | None:
    if not row:
        return None
    return MemoryExport(
        id=row[0],
        project_id=row[1],
        schema=json.loads(row[2]),
        filters=json.loads(row[3]),
        instructions=row[4],
        result=json.loads(row[5]),
        created_at=from_iso(row[6]),
    )
