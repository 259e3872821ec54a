"""The SQLite store of dashboard users."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from mnemo.adapters.sqlite import auth_epoch
from mnemo.adapters.sqlite.database import Database
from mnemo.domain.accounts import Role, User
from mnemo.domain.timefmt import from_iso, iso
from mnemo.errors import ConflictError

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_login_at TEXT
);
"""
_COLUMNS = "id, name, email, role, password_hash, created_at, last_login_at"
EMAIL_TAKEN = "Email is already in use."


class SqliteUserStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA + auth_epoch.SCHEMA + auth_epoch.USER_TRIGGERS)

    def add(self, user: User) -> None:
        with self._db.write() as conn:
            _insert(conn, user)

    def add_first(self, user: User) -> bool:
        with self._db.write() as conn:
            if conn.execute("SELECT 1 FROM users LIMIT 1").fetchone():
                return False
            _insert(conn, user)
            return True

    def get(self, user_id: str) -> User | None:
        return self._one("id = ?", user_id)

    def get_by_email(self, email: str) -> User | None:
        return self._one("email = ?", email)

    def list(self) -> list[User]:
        rows = self._db.read().execute(f"SELECT {_COLUMNS} FROM users ORDER BY created_at, seq")
        return [_from_row(r) for r in rows]

    def count(self) -> int:
        return int(self._db.read().execute("SELECT COUNT(*) FROM users").fetchone()[0])

    def update(self, user: User) -> bool:
        with self._db.write() as conn:
            try:
                cursor = conn.execute(
                    "UPDATE users SET name = ?, email = ?, role = ?, password_hash = ?, created_at = ?, "
                    "last_login_at = ? WHERE id = ?",
                    (*_to_row(user)[1:], user.id),
                )
            except sqlite3.IntegrityError as exc:
                raise ConflictError(EMAIL_TAKEN) from exc
            return cursor.rowcount == 1

    def remove(self, user_id: str) -> bool:
        with self._db.write() as conn:
            return conn.execute("DELETE FROM users WHERE id = ?", (user_id,)).rowcount == 1

    def _one(self, where: str, value: str) -> User | None:
        row = self._db.read().execute(f"SELECT {_COLUMNS} FROM users WHERE {where}", (value,)).fetchone()
        return _from_row(row) if row else None


def _insert(conn: sqlite3.Connection, user: User) -> None:
    try:
        conn.execute(f"INSERT INTO users ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", _to_row(user))
    except sqlite3.IntegrityError as exc:
        raise ConflictError(EMAIL_TAKEN) from exc


def _to_row(user: User) -> tuple[Any, ...]:
    return (
        user.id,
        user.name,
        user.email,
        user.role.value,
        user.password_hash,
        iso(user.created_at),
        iso(user.last_login_at) if user.last_login_at else None,
    )


def _from_row(row: Sequence[Any]) -> User:
    return User(
        id=row[0],
        name=row[1],
        email=row[2],
        role=Role(row[3]),
        password_hash=row[4],
        created_at=from_iso(row[5]),
        last_login_at=from_iso(row[6]) if row[6] else None,
    )
