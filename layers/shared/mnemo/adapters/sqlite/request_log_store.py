"""The SQLite store of the API call log."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemo.adapters.sqlite.database import Database
from mnemo.domain.request_log import RequestLogEntry
from mnemo.domain.timefmt import from_iso, iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS request_logs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    latency_ms REAL NOT NULL,
    auth_type TEXT NOT NULL,
    user_id TEXT,
    key_prefix TEXT,
    request_id TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS request_logs_created ON request_logs(created_at);
"""
_COLUMNS = "id, method, path, status_code, latency_ms, auth_type, user_id, key_prefix, request_id, created_at"


class SqliteRequestLogStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA)

    def append(self, entries: Sequence[RequestLogEntry]) -> None:
        if not entries:
            return
        with self._db.write() as conn:
            conn.executemany(
                f"INSERT INTO request_logs ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_to_row(e) for e in entries],
            )

    def recent(self, limit: int) -> list[RequestLogEntry]:
        rows = self._db.read().execute(
            f"SELECT {_COLUMNS} FROM request_logs ORDER BY created_at DESC, seq DESC LIMIT ?", (max(limit, 0),)
        )
        return [_from_row(r) for r in rows]

    def prune(self, before: datetime) -> int:
        with self._db.write() as conn:
            return conn.execute("DELETE FROM request_logs WHERE created_at < ?", (iso(before),)).rowcount


def _to_row(entry: RequestLogEntry) -> tuple[Any, ...]:
    return (
        entry.id,
        entry.method,
        entry.path,
        entry.status_code,
        entry.latency_ms,
        entry.auth_type,
        entry.user_id,
        entry.key_prefix,
        entry.request_id,
        iso(entry.created_at),
    )


def _from_row(row: Sequence[Any]) -> RequestLogEntry:
    return RequestLogEntry(
        id=row[0],
        method=row[1],
        path=row[2],
        status_code=int(row[3]),
        latency_ms=float(row[4]),
        auth_type=row[5],
        user_id=row[6],
        key_prefix=row[7],
        request_id=row[8],
        created_at=from_iso(row[9]),
    )
