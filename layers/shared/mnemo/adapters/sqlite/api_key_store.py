"""The SQLite store of per-user API keys: the shown prefix and a hash, never the value."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemo.adapters.sqlite import auth_epoch
from mnemo.adapters.sqlite.database import Database
from mnemo.domain.api_keys import ApiKey
from mnemo.domain.timefmt import from_iso, iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    label TEXT NOT NULL,
    key_prefix TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys(user_id, created_at);
CREATE INDEX IF NOT EXISTS api_keys_prefix ON api_keys(key_prefix);
"""
_COLUMNS = "id, user_id, label, key_prefix, key_hash, created_at, last_used_at, revoked_at"


class SqliteApiKeyStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA + auth_epoch.SCHEMA + auth_epoch.API_KEY_TRIGGERS)

    def add(self, key: ApiKey) -> None:
        with self._db.write() as conn:
            conn.execute(f"INSERT INTO api_keys ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", _to_row(key))

    def get(self, key_id: str) -> ApiKey | None:
        row = self._db.read().execute(f"SELECT {_COLUMNS} FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        return _from_row(row) if row else None

    def list_for_user(self, user_id: str) -> list[ApiKey]:
        rows = self._db.read().execute(
            f"SELECT {_COLUMNS} FROM api_keys WHERE user_id = ? AND revoked_at IS NULL "
            "ORDER BY created_at DESC, seq DESC",
            (user_id,),
        )
        return [_from_row(r) for r in rows]

    def find_active_by_prefix(self, key_prefix: str) -> Sequence[ApiKey]:
        rows = self._db.read().execute(
            f"SELECT {_COLUMNS} FROM api_keys WHERE key_prefix = ? AND revoked_at IS NULL", (key_prefix,)
        )
        return [_from_row(r) for r in rows]

    def revoke(self, key_id: str, at: datetime) -> bool:
        with self._db.write() as conn:
            cursor = conn.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (iso(at), key_id)
            )
            return cursor.rowcount == 1

    def touch(self, key_id: str, at: datetime) -> None:
        with self._db.write() as conn:
            conn.execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (iso(at), key_id))

    def auth_epoch(self) -> int:
        return auth_epoch.read_epoch(self._db)

    def remove_for_user(self, user_id: str) -> int:
        with self._db.write() as conn:
            return conn.execute("DELETE FROM api_keys WHERE user_id = ?", (user_id,)).rowcount


def _to_row(key: ApiKey) -> tuple[Any, ...]:
    return (
        key.id,
        key.user_id,
        key.label,
        key.key_prefix,
        key.key_hash,
        iso(key.created_at),
        iso(key.last_used_at) if key.last_used_at else None,
        iso(key.revoked_at) if key.revoked_at else None,
    )


def _from_row(row: Sequence[Any]) -> ApiKey:
    return ApiKey(
        id=row[0],
        user_id=row[1],
        label=row[2],
        key_prefix=row[3],
        key_hash=row[4],
        created_at=from_iso(row[5]),
        last_used_at=from_iso(row[6]) if row[6] else None,
        revoked_at=from_iso(row[7]) if row[7] else None,
    )
