"""The SQLite store of refresh tokens: a hash of each token's id, never the token."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemo.adapters.sqlite.database import Database
from mnemo.domain.sessions import RefreshTokenRecord
from mnemo.domain.timefmt import from_iso, iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    family_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS refresh_tokens_family ON refresh_tokens(family_id);
CREATE INDEX IF NOT EXISTS refresh_tokens_user ON refresh_tokens(user_id);
CREATE INDEX IF NOT EXISTS refresh_tokens_expiry ON refresh_tokens(expires_at);
"""
_COLUMNS = "token_hash, user_id, family_id, created_at, expires_at, used_at, revoked_at"
_USABLE = "used_at IS NULL AND revoked_at IS NULL"


class SqliteRefreshTokenStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA)

    def add(self, record: RefreshTokenRecord) -> None:
        with self._db.write() as conn:
            conn.execute(f"INSERT INTO refresh_tokens ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", _to_row(record))

    def get(self, token_hash: str) -> RefreshTokenRecord | None:
        row = (
            self._db.read()
            .execute(f"SELECT {_COLUMNS} FROM refresh_tokens WHERE token_hash = ?", (token_hash,))
            .fetchone()
        )
        return _from_row(row) if row else None

    def consume(self, token_hash: str, at: datetime) -> RefreshTokenRecord | None:
        with self._db.write() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM refresh_tokens WHERE token_hash = ? AND {_USABLE} AND expires_at > ?",
                (token_hash, iso(at)),
            ).fetchone()
            if row is None:
                return None
            conn.execute("UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?", (iso(at), token_hash))
            return _from_row(row)

    def revoke_family(self, family_id: str, at: datetime) -> int:
        with self._db.write() as conn:
            return conn.execute(
                f"UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND {_USABLE}", (iso(at), family_id)
            ).rowcount

    def revoke_for_user(self, user_id: str, at: datetime, keep_family: str | None = None) -> int:
        with self._db.write() as conn:
            return conn.execute(
                f"UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND family_id IS NOT ? AND {_USABLE}",
                (iso(at), user_id, keep_family),
            ).rowcount

    def prune(self, expired_before: datetime) -> int:
        with self._db.write() as conn:
            return conn.execute("DELETE FROM refresh_tokens WHERE expires_at < ?", (iso(expired_before),)).rowcount


def _to_row(record: RefreshTokenRecord) -> tuple[Any, ...]:
    return (
        record.token_hash,
        record.user_id,
        record.family_id,
        iso(record.created_at),
        iso(record.expires_at),
        iso(record.used_at) if record.used_at else None,
        iso(record.revoked_at) if record.revoked_at else None,
    )


def _from_row(row: Sequence[Any]) -> RefreshTokenRecord:
    return RefreshTokenRecord(
        token_hash=row[0],
        user_id=row[1],
        family_id=row[2],
        created_at=from_iso(row[3]),
        expires_at=from_iso(row[4]),
        used_at=from_iso(row[5]) if row[5] else None,
        revoked_at=from_iso(row[6]) if row[6] else None,
    )
