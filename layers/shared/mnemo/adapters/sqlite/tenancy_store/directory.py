"""The platform's directory in the main SQLite file (mnemo.ports.tenancy_store.DirectoryStore): users,
organizations, projects, their members, and project keys."""

from __future__ import annotations

from datetime import datetime

from mnemo.adapters.sqlite import auth_epoch
from mnemo.adapters.sqlite.tenancy_store.rows import (
    KEY_COLUMNS,
    PROJECT_COLUMNS,
    key_of,
    key_row,
    org_of,
    placeholders,
    project_of,
    project_row,
    user_of,
)
from mnemo.adapters.sqlite.tenancy_store.tables import TenancyTables
from mnemo.domain.tenancy import Member, Organization, PlatformUser, Project, ProjectKey, Role
from mnemo.domain.timefmt import from_iso, iso

# What a project owns in the main file, dropped with it.
_PROJECT_TABLES = (
    "platform_project_members",
    "platform_keys",
    "platform_events",
    "platform_exports",
    "platform_feedback",
    "platform_entities",
    "platform_counters",
    "platform_daily_counters",
)


class SqliteDirectoryStore(TenancyTables):
    # ---- users ----

    def user_by_email(self, email: str) -> PlatformUser | None:
        row = self._db.read().execute("SELECT id, email, created_at FROM platform_users WHERE email = ?", (email,))
        return user_of(row.fetchone())

    def user_by_id(self, user_id: str) -> PlatformUser | None:
        row = self._db.read().execute("SELECT id, email, created_at FROM platform_users WHERE id = ?", (user_id,))
        return user_of(row.fetchone())

    def add_user(self, user: PlatformUser) -> PlatformUser:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO platform_users (id, email, created_at) VALUES (?, ?, ?) ON CONFLICT(email) DO NOTHING",
                (user.id, user.email, iso(user.created_at)),
            )
            row = conn.execute("SELECT id, email, created_at FROM platform_users WHERE email = ?", (user.email,))
            stored = user_of(row.fetchone())
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
        return org_of(row.fetchone())

    def save_org(self, org: Organization) -> None:
        with self._db.write() as conn:
            conn.execute(
                "UPDATE platform_orgs SET name = ?, created_at = ?, updated_at = ? WHERE id = ?",
                (org.name, iso(org.created_at), iso(org.updated_at), org.id),
            )

    def orgs_of(self, user_id: str) -> list[Organization]:
        rows = self._db.read().execute(
            "SELECT o.id, o.name, o.created_at, o.updated_at FROM platform_orgs o "
            "JOIN platform_org_members m ON m.org_id = o.id WHERE m.user_id = ? ORDER BY o.created_at, o.id",
            (user_id,),
        )
        return [o for o in (org_of(r) for r in rows) if o is not None]

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
                f"INSERT INTO platform_projects ({PROJECT_COLUMNS}) VALUES ({placeholders(PROJECT_COLUMNS)})",
                project_row(project),
            )
            self.set_project_member(project.id, owner, Role.OWNER)

    def get_project(self, project_id: str) -> Project | None:
        row = self._db.read().execute(f"SELECT {PROJECT_COLUMNS} FROM platform_projects WHERE id = ?", (project_id,))
        return project_of(row.fetchone())

    def projects_of_org(self, org_id: str) -> list[Project]:
        rows = self._db.read().execute(
            f"SELECT {PROJECT_COLUMNS} FROM platform_projects WHERE org_id = ? ORDER BY created_at, id", (org_id,)
        )
        return [p for p in (project_of(r) for r in rows) if p is not None]

    def projects_of_member(self, user_id: str) -> list[Project]:
        columns = ", ".join(f"p.{c.strip()}" for c in PROJECT_COLUMNS.split(","))
        rows = self._db.read().execute(
            f"SELECT {columns} FROM platform_projects p JOIN platform_project_members m ON m.project_id = p.id "
            "WHERE m.user_id = ? ORDER BY p.created_at, p.id",
            (user_id,),
        )
        return [p for p in (project_of(r) for r in rows) if p is not None]

    def save_project(self, project: Project) -> None:
        assignments = ", ".join(f"{c.strip()} = ?" for c in PROJECT_COLUMNS.split(","))
        with self._db.write() as conn:
            conn.execute(
                f"UPDATE platform_projects SET {assignments} WHERE id = ?", (*project_row(project), project.id)
            )

    def delete_project(self, project_id: str) -> None:
        with self._db.write() as conn:
            for table in _PROJECT_TABLES:
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
                f"INSERT INTO platform_keys ({KEY_COLUMNS}) VALUES ({placeholders(KEY_COLUMNS)})", key_row(key)
            )

    def key_by_hash(self, key_hash: str) -> ProjectKey | None:
        row = self._db.read().execute(
            f"SELECT {KEY_COLUMNS} FROM platform_keys WHERE key_hash = ? AND revoked_at IS NULL", (key_hash,)
        )
        return key_of(row.fetchone())

    def keys_of_project(self, project_id: str) -> list[ProjectKey]:
        rows = self._db.read().execute(
            f"SELECT {KEY_COLUMNS} FROM platform_keys WHERE project_id = ? ORDER BY created_at, id", (project_id,)
        )
        return [k for k in (key_of(r) for r in rows) if k is not None]

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
