"""The console's sign-in records in the main SQLite file (mnemo.ports.console_account_store): password hashes
beside the platform users, sessions and invitations by the digest of their secret."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemo.adapters.sqlite.database import Database
from mnemo.domain.console_accounts import InvitationRecord, SessionRecord
from mnemo.domain.tenancy import Role
from mnemo.domain.timefmt import from_iso, iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS console_passwords (
    user_id TEXT PRIMARY KEY, password_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS console_sessions (
    session_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_at TEXT NOT NULL, last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS console_sessions_user ON console_sessions(user_id);
CREATE TABLE IF NOT EXISTS console_invitations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, token_hash TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL, org_id TEXT NOT NULL, project_id TEXT, role TEXT NOT NULL, invited_by TEXT NOT NULL,
    created_at TEXT NOT NULL, expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS console_invitations_org ON console_invitations(org_id, seq);
"""
_SESSION = "session_hash, user_id, created_at, last_seen_at, expires_at"
_INVITATION = "id, token_hash, email, org_id, project_id, role, invited_by, created_at, expires_at"


class SqliteConsoleAccountStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA)

    # ---- passwords ----

    def password_hash(self, user_id: str) -> str | None:
        row = self._db.read().execute("SELECT password_hash FROM console_passwords WHERE user_id = ?", (user_id,))
        found = row.fetchone()
        return None if found is None else str(found[0])

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO console_passwords (user_id, password_hash) VALUES (?, ?) "
                "ON CONFLICT(user_id) DO UPDATE SET password_hash = excluded.password_hash",
                (user_id, password_hash),
            )

    # ---- sessions ----

    def add_session(self, record: SessionRecord) -> None:
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO console_sessions ({_SESSION}) VALUES (?, ?, ?, ?, ?)",
                (
                    record.session_hash,
                    record.user_id,
                    iso(record.created_at),
                    iso(record.last_seen_at),
                    iso(record.expires_at),
                ),
            )

    def get_session(self, session_hash: str) -> SessionRecord | None:
        row = self._db.read().execute(
            f"SELECT {_SESSION} FROM console_sessions WHERE session_hash = ?", (session_hash,)
        )
        found = row.fetchone()
        if found is None:
            return None
        return SessionRecord(found[0], found[1], from_iso(found[2]), from_iso(found[3]), from_iso(found[4]))

    def touch_session(self, session_hash: str, at: datetime) -> None:
        with self._db.write() as conn:
            conn.execute("UPDATE console_sessions SET last_seen_at = ? WHERE session_hash = ?", (iso(at), session_hash))

    def delete_session(self, session_hash: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM console_sessions WHERE session_hash = ?", (session_hash,))

    def delete_sessions_of(self, user_id: str, keep: str | None = None) -> int:
        with self._db.write() as conn:
            cursor = conn.execute(
                "DELETE FROM console_sessions WHERE user_id = ? AND session_hash IS NOT ?", (user_id, keep)
            )
            return cursor.rowcount

    # ---- invitations ----

    def add_invitation(self, record: InvitationRecord) -> None:
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO console_invitations ({_INVITATION}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _invitation_row(record),
            )

    def invitation_by_token(self, token_hash: str) -> InvitationRecord | None:
        row = self._db.read().execute(
            f"SELECT {_INVITATION} FROM console_invitations WHERE token_hash = ?", (token_hash,)
        )
        found = row.fetchone()
        return None if found is None else _invitation_of(found)

    def invitations_of(self, org_id: str) -> list[InvitationRecord]:
        rows = self._db.read().execute(
            f"SELECT {_INVITATION} FROM console_invitations WHERE org_id = ? ORDER BY created_at, seq", (org_id,)
        )
        return [_invitation_of(r) for r in rows]

    def take_invitation(self, org_id: str, invitation_id: str) -> InvitationRecord | None:
        with self._db.write() as conn:
            found = conn.execute(
                f"SELECT {_INVITATION} FROM console_invitations WHERE org_id = ? AND id = ?", (org_id, invitation_id)
            ).fetchone()
            if found is None:
                return None
            conn.execute("DELETE FROM console_invitations WHERE id = ?", (invitation_id,))
            return _invitation_of(found)

    def delete_invitations(self, org_id: str, project_id: str | None = None) -> int:
        with self._db.write() as conn:
            if project_id is None:
                cursor = conn.execute("DELETE FROM console_invitations WHERE org_id = ?", (org_id,))
            else:
                cursor = conn.execute(
                    "DELETE FROM console_invitations WHERE org_id = ? AND project_id = ?", (org_id, project_id)
                )
            return cursor.rowcount


def _invitation_row(record: InvitationRecord) -> tuple[Any, ...]:
    return (
        record.id,
        record.token_hash,
        record.email,
        record.org_id,
        record.project_id,
        record.role.value,
        record.invited_by,
        iso(record.created_at),
        iso(record.expires_at),
    )


def _invitation_of(row: Sequence[Any]) -> InvitationRecord:
    return InvitationRecord(
        id=row[0],
        token_hash=row[1],
        email=row[2],
        org_id=row[3],
        project_id=row[4],
        role=Role(row[5]),
        invited_by=row[6],
        created_at=from_iso(row[7]),
        expires_at=from_iso(row[8]),
    )
