"""The SQLite store of Dream's reflection state (mnemo.ports.reflection_store), in the main file: the projects with
Synthesis on, and per (project, user) the last run and the claim of the run holding it. A claim is one write
transaction: read the row, decide, write (SQLite has one writer at a time)."""

from __future__ import annotations

from datetime import datetime, timedelta

from mnemo.adapters.sqlite.database import Database
from mnemo.domain.timefmt import from_iso, iso
from mnemo.ports.reflection_store import ReflectionState

SCHEMA = """
CREATE TABLE IF NOT EXISTS dream_projects (project_id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS dream_users (
    project_id TEXT NOT NULL, user_id TEXT NOT NULL, last_run_at TEXT, claimed_at TEXT, lease_until TEXT,
    PRIMARY KEY (project_id, user_id)
);
"""


class SqliteReflectionStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA)

    def set_enabled(self, project_id: str, enabled: bool) -> None:
        with self._db.write() as conn:
            if enabled:
                conn.execute("INSERT OR IGNORE INTO dream_projects (project_id) VALUES (?)", (project_id,))
            else:
                conn.execute("DELETE FROM dream_projects WHERE project_id = ?", (project_id,))

    def enabled_projects(self) -> list[str]:
        rows = self._db.read().execute("SELECT project_id FROM dream_projects ORDER BY project_id")
        return [r[0] for r in rows]

    def states(self, project_id: str) -> dict[str, ReflectionState]:
        rows = self._db.read().execute(
            "SELECT user_id, last_run_at, claimed_at, lease_until FROM dream_users WHERE project_id = ?",
            (project_id,),
        )
        return {r[0]: _state(r) for r in rows}

    def claim(
        self, project_id: str, user_id: str, at: datetime, *, lease: timedelta, not_since: datetime | None = None
    ) -> bool:
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT user_id, last_run_at, claimed_at, lease_until FROM dream_users "
                "WHERE project_id = ? AND user_id = ?",
                (project_id, user_id),
            ).fetchone()
            state = _state(row) if row else ReflectionState(user_id)
            if state.held(at):
                return False
            if not_since is not None and state.last_run_at is not None and state.last_run_at > not_since:
                return False
            conn.execute(
                "INSERT INTO dream_users (project_id, user_id, last_run_at, claimed_at, lease_until) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(project_id, user_id) DO UPDATE SET "
                "claimed_at = excluded.claimed_at, lease_until = excluded.lease_until",
                (project_id, user_id, None, iso(at), iso(at + lease)),
            )
            return True

    def renew(self, project_id: str, user_id: str, claimed_at: datetime, at: datetime, *, lease: timedelta) -> bool:
        with self._db.write() as conn:
            cursor = conn.execute(
                "UPDATE dream_users SET claimed_at = ?, lease_until = ? "
                "WHERE project_id = ? AND user_id = ? AND claimed_at = ?",
                (iso(at), iso(at + lease), project_id, user_id, iso(claimed_at)),
            )
            return cursor.rowcount == 1

    def release(self, project_id: str, user_id: str, claimed_at: datetime, *, ran: bool) -> None:
        ran_at = ", last_run_at = claimed_at" if ran else ""
        with self._db.write() as conn:
            conn.execute(
                f"UPDATE dream_users SET lease_until = NULL{ran_at}, claimed_at = NULL "
                "WHERE project_id = ? AND user_id = ? AND claimed_at = ?",
                (project_id, user_id, iso(claimed_at)),
            )

    def drop_project(self, project_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM dream_projects WHERE project_id = ?", (project_id,))
            conn.execute("DELETE FROM dream_users WHERE project_id = ?", (project_id,))


def _state(row: tuple[str, str | None, str | None, str | None]) -> ReflectionState:
    def moment(text: str | None) -> datetime | None:
        return from_iso(text) if text else None

    return ReflectionState(row[0], moment(row[1]), moment(row[2]), moment(row[3]))
