"""The SQLite store of platform profiles (mnemo.ports.profile_store), in the main file: the settings of each
project, a profile per (project, entity), and the profile jobs (unique per project and Idempotency-Key). A claim
and a generation's end are each one write transaction: read the row, decide, write."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import datetime
from typing import Any

from mnemo.adapters.sqlite.database import Database
from mnemo.domain.profiles import JobStatus, Profile, ProfileJob, ProfileSettings, ProfileStatus
from mnemo.domain.timefmt import from_iso, iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS profile_settings (
    project_id TEXT PRIMARY KEY, enabled INTEGER NOT NULL, schema TEXT, custom_instructions TEXT,
    min_memories INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS profiles (
    project_id TEXT NOT NULL, entity_type TEXT NOT NULL, entity_id TEXT NOT NULL, status TEXT NOT NULL,
    profile TEXT NOT NULL, sources TEXT NOT NULL, reason TEXT, updated_at TEXT, generation_count INTEGER NOT NULL,
    stamp TEXT, changed_at TEXT, read_at TEXT, queued_at TEXT,
    PRIMARY KEY (project_id, entity_type, entity_id)
);
CREATE TABLE IF NOT EXISTS profile_jobs (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL, operation TEXT NOT NULL, entity_type TEXT NOT NULL,
    entity_ids TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    idempotency_key TEXT, request_hash TEXT, answer TEXT NOT NULL, total INTEGER, completed INTEGER NOT NULL,
    succeeded INTEGER NOT NULL, failed INTEGER NOT NULL, skipped INTEGER NOT NULL, error TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS profile_jobs_key ON profile_jobs(project_id, idempotency_key);
CREATE INDEX IF NOT EXISTS profiles_pending ON profiles(status) WHERE status = 'pending';
"""
# Columns a file made before them lacks: (table, column, declaration).
_ADDED_COLUMNS = (
    ("profile_settings", "min_memories", "INTEGER NOT NULL DEFAULT 1"),
    ("profiles", "changed_at", "TEXT"),
    ("profiles", "read_at", "TEXT"),
    ("profiles", "queued_at", "TEXT"),
)

_JOB = (
    "id, project_id, operation, entity_type, entity_ids, status, created_at, updated_at, idempotency_key, "
    "request_hash, answer, total, completed, succeeded, failed, skipped, error"
)
_PROFILE = (
    "project_id, entity_type, entity_id, status, profile, sources, reason, updated_at, generation_count, stamp, "
    "changed_at, read_at, queued_at"
)
_PENDING = ProfileStatus.PENDING.value


class SqliteProfileStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        with db.write() as conn:  # the columns first: the script's index needs them
            for table, column, declaration in _ADDED_COLUMNS:
                columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
                if columns and column not in columns:
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        db.executescript(SCHEMA)

    def get_settings(self, project_id: str) -> ProfileSettings | None:
        row = (
            self._db.read()
            .execute(
                "SELECT enabled, schema, custom_instructions, min_memories FROM profile_settings WHERE project_id = ?",
                (project_id,),
            )
            .fetchone()
        )
        if row is None:
            return None
        schema = json.loads(row[1]) if row[1] is not None else None
        return ProfileSettings(project_id, bool(row[0]), schema, row[2], int(row[3]))

    def save_settings(self, settings: ProfileSettings) -> None:
        schema = json.dumps(settings.schema) if settings.schema is not None else None
        with self._db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO profile_settings (project_id, enabled, schema, custom_instructions, "
                "min_memories) VALUES (?, ?, ?, ?, ?)",
                (
                    settings.project_id,
                    int(settings.enabled),
                    schema,
                    settings.custom_instructions,
                    settings.min_memories,
                ),
            )

    def get_profile(self, project_id: str, entity_type: str, entity_id: str) -> Profile | None:
        return _read_profile(self._db.read(), project_id, entity_type, entity_id)

    def save_profile(self, profile: Profile) -> None:
        with self._db.write() as conn:
            _write_profile(conn, profile)

    def save_content(self, profile: Profile) -> bool:
        with self._db.write() as conn:
            stored = _read_profile(conn, profile.project_id, profile.entity_type, profile.entity_id)
            if stored is None or stored.updated_at != profile.updated_at:
                return False
            _write_profile(conn, replace(stored, profile=profile.profile, sources=profile.sources))
            return True

    def claim_generation(
        self,
        project_id: str,
        entity_type: str,
        entity_id: str,
        *,
        at: datetime,
        reclaim_before: datetime,
        changed_at: datetime | None = None,
    ) -> bool:
        with self._db.write() as conn:
            stored = _read_profile(conn, project_id, entity_type, entity_id)
            if stored is None:
                stored = Profile(project_id, entity_type, entity_id, ProfileStatus.PENDING, changed_at=changed_at)
            elif changed_at is not None and (stored.changed_at is None or changed_at > stored.changed_at):
                stored = replace(stored, changed_at=changed_at)
                _write_profile(conn, stored)
            claimed = stored.status != ProfileStatus.PENDING or stored.queued_at is None
            queued = stored.queued_at
            if stored.status == ProfileStatus.PENDING and queued is not None and queued < reclaim_before:
                claimed = True  # its generation was lost
            if changed_at is not None and stored.read_at is not None and stored.read_at >= changed_at:
                claimed = False  # the last generation saw this change
            if claimed:
                _write_profile(conn, replace(stored, status=ProfileStatus.PENDING, queued_at=at))
            return claimed

    def finish_generation(self, profile: Profile, read_at: datetime) -> bool:
        with self._db.write() as conn:
            stored = _read_profile(conn, profile.project_id, profile.entity_type, profile.entity_id)
            if stored is None:
                return False  # deleted while the generation ran (its user's erasure): it stays deleted
            changed_at = stored.changed_at
            finished = replace(profile, changed_at=changed_at, read_at=read_at, queued_at=None)
            again = changed_at is not None and changed_at > read_at
            if again:
                finished = replace(finished, status=ProfileStatus.PENDING, queued_at=profile.updated_at)
            _write_profile(conn, finished)
            return again

    def pending_profiles(self) -> list[Profile]:
        rows = self._db.read().execute(f"SELECT {_PROFILE} FROM profiles WHERE status = ?", (_PENDING,))
        return [_profile(r) for r in rows]

    def delete_profile(self, project_id: str, entity_type: str, entity_id: str) -> None:
        with self._db.write() as conn:
            conn.execute(
                "DELETE FROM profiles WHERE project_id = ? AND entity_type = ? AND entity_id = ?",
                (project_id, entity_type, entity_id),
            )

    def add_job(self, job: ProfileJob) -> ProfileJob:
        with self._db.write() as conn:
            if job.idempotency_key is not None:
                row = conn.execute(
                    f"SELECT {_JOB} FROM profile_jobs WHERE project_id = ? AND idempotency_key = ?",
                    (job.project_id, job.idempotency_key),
                ).fetchone()
                if row is not None:
                    return _job(row)
            conn.execute(f"INSERT INTO profile_jobs ({_JOB}) VALUES ({', '.join('?' * 17)})", _job_row(job))
        return job

    def job_by_key(self, project_id: str, idempotency_key: str) -> ProfileJob | None:
        row = (
            self._db.read()
            .execute(
                f"SELECT {_JOB} FROM profile_jobs WHERE project_id = ? AND idempotency_key = ?",
                (project_id, idempotency_key),
            )
            .fetchone()
        )
        return _job(row) if row else None

    def get_job(self, project_id: str, job_id: str) -> ProfileJob | None:
        row = (
            self._db.read()
            .execute(f"SELECT {_JOB} FROM profile_jobs WHERE id = ? AND project_id = ?", (job_id, project_id))
            .fetchone()
        )
        return _job(row) if row else None

    def save_job(self, job: ProfileJob) -> None:
        columns = [c.strip() for c in _JOB.split(",")][1:]
        assignments = ", ".join(f"{c} = ?" for c in columns)
        row = _job_row(job)
        with self._db.write() as conn:
            conn.execute(f"UPDATE profile_jobs SET {assignments} WHERE id = ?", (*row[1:], job.id))

    def unfinished_jobs(self) -> list[ProfileJob]:
        rows = self._db.read().execute(
            f"SELECT {_JOB} FROM profile_jobs WHERE status IN (?, ?) ORDER BY created_at",
            (JobStatus.QUEUED.value, JobStatus.RUNNING.value),
        )
        return [_job(r) for r in rows]

    def delete_project(self, project_id: str) -> None:
        with self._db.write() as conn:
            for table in ("profile_settings", "profiles", "profile_jobs"):
                conn.execute(f"DELETE FROM {table} WHERE project_id = ?", (project_id,))


def _read_profile(conn: sqlite3.Connection, project_id: str, entity_type: str, entity_id: str) -> Profile | None:
    row = conn.execute(
        f"SELECT {_PROFILE} FROM profiles WHERE project_id = ? AND entity_type = ? AND entity_id = ?",
        (project_id, entity_type, entity_id),
    ).fetchone()
    return _profile(row) if row is not None else None


def _write_profile(conn: sqlite3.Connection, profile: Profile) -> None:
    conn.execute(
        f"INSERT OR REPLACE INTO profiles ({_PROFILE}) VALUES ({', '.join('?' * 13)})",
        (
            profile.project_id,
            profile.entity_type,
            profile.entity_id,
            profile.status.value,
            json.dumps(profile.profile),
            json.dumps(profile.sources),
            profile.reason,
            _moment(profile.updated_at),
            profile.generation_count,
            profile.stamp,
            _moment(profile.changed_at),
            _moment(profile.read_at),
            _moment(profile.queued_at),
        ),
    )


def _profile(row: sqlite3.Row | tuple[Any, ...]) -> Profile:
    return Profile(
        project_id=row[0],
        entity_type=row[1],
        entity_id=row[2],
        status=ProfileStatus(row[3]),
        profile=json.loads(row[4]),
        sources=json.loads(row[5]),
        reason=row[6],
        updated_at=_moment_of(row[7]),
        generation_count=int(row[8]),
        stamp=row[9],
        changed_at=_moment_of(row[10]),
        read_at=_moment_of(row[11]),
        queued_at=_moment_of(row[12]),
    )


def _moment(at: datetime | None) -> str | None:
    return iso(at) if at is not None else None


def _moment_of(text: str | None) -> datetime | None:
    return from_iso(text) if text else None


def _job_row(job: ProfileJob) -> tuple[Any, ...]:
    return (
        job.id,
        job.project_id,
        job.operation,
        job.entity_type,
        json.dumps(list(job.entity_ids)),
        job.status.value,
        iso(job.created_at),
        iso(job.updated_at),
        job.idempotency_key,
        job.request_hash,
        json.dumps(job.answer),
        job.total,
        job.completed,
        job.succeeded,
        job.failed,
        job.skipped,
        job.error,
    )


def _job(row: sqlite3.Row | tuple[Any, ...]) -> ProfileJob:
    return ProfileJob(
        id=row[0],
        project_id=row[1],
        operation=row[2],
        entity_type=row[3],
        entity_ids=tuple(json.loads(row[4])),
        status=JobStatus(row[5]),
        created_at=from_iso(row[6]),
        updated_at=from_iso(row[7]),
        idempotency_key=row[8],
        request_hash=row[9],
        answer=json.loads(row[10]),
        total=row[11],
        completed=row[12],
        succeeded=row[13],
        failed=row[14],
        skipped=row[15],
        error=row[16],
    )
