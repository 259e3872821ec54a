"""The SQLite store of platform profiles (mnemo.ports.profile_store), in the main file: the settings of each
project, a profile per (project, entity), and the profile jobs (unique per project and Idempotency-Key)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from mnemo.adapters.sqlite.database import Database
from mnemo.domain.profiles import JobStatus, Profile, ProfileJob, ProfileSettings, ProfileStatus
from mnemo.domain.timefmt import from_iso, iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS profile_settings (
    project_id TEXT PRIMARY KEY, enabled INTEGER NOT NULL, schema TEXT, custom_instructions TEXT
);
CREATE TABLE IF NOT EXISTS profiles (
    project_id TEXT NOT NULL, entity_type TEXT NOT NULL, entity_id TEXT NOT NULL, status TEXT NOT NULL,
    profile TEXT NOT NULL, sources TEXT NOT NULL, reason TEXT, updated_at TEXT, generation_count INTEGER NOT NULL,
    stamp TEXT,
    PRIMARY KEY (project_id, entity_type, entity_id)
);
CREATE TABLE IF NOT EXISTS profile_jobs (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL, operation TEXT NOT NULL, entity_type TEXT NOT NULL,
    entity_ids TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    idempotency_key TEXT, request_hash TEXT, answer TEXT NOT NULL, total INTEGER, completed INTEGER NOT NULL,
    succeeded INTEGER NOT NULL, failed INTEGER NOT NULL, skipped INTEGER NOT NULL, error TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS profile_jobs_key ON profile_jobs(project_id, idempotency_key);
"""

_JOB = (
    "id, project_id, operation, entity_type, entity_ids, status, created_at, updated_at, idempotency_key, "
    "request_hash, answer, total, completed, succeeded, failed, skipped, error"
)
_PROFILE = "project_id, entity_type, entity_id, status, profile, sources, reason, updated_at, generation_count, stamp"


class SqliteProfileStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        db.executescript(SCHEMA)

    def get_settings(self, project_id: str) -> ProfileSettings | None:
        row = (
            self._db.read()
            .execute(
                "SELECT enabled, schema, custom_instructions FROM profile_settings WHERE project_id = ?", (project_id,)
            )
            .fetchone()
        )
        if row is None:
            return None
        return ProfileSettings(project_id, bool(row[0]), json.loads(row[1]) if row[1] is not None else None, row[2])

    def save_settings(self, settings: ProfileSettings) -> None:
        schema = json.dumps(settings.schema) if settings.schema is not None else None
        with self._db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO profile_settings (project_id, enabled, schema, custom_instructions) "
                "VALUES (?, ?, ?, ?)",
                (settings.project_id, int(settings.enabled), schema, settings.custom_instructions),
            )

    def enabled_projects(self) -> list[str]:
        rows = self._db.read().execute("SELECT project_id FROM profile_settings WHERE enabled = 1 ORDER BY project_id")
        return [r[0] for r in rows]

    def get_profile(self, project_id: str, entity_type: str, entity_id: str) -> Profile | None:
        row = (
            self._db.read()
            .execute(
                f"SELECT {_PROFILE} FROM profiles WHERE project_id = ? AND entity_type = ? AND entity_id = ?",
                (project_id, entity_type, entity_id),
            )
            .fetchone()
        )
        if row is None:
            return None
        return Profile(
            row[0],
            row[1],
            row[2],
            ProfileStatus(row[3]),
            json.loads(row[4]),
            json.loads(row[5]),
            row[6],
            from_iso(row[7]) if row[7] else None,
            int(row[8]),
            row[9],
        )

    def profiled_users(self, project_id: str) -> list[str]:
        rows = self._db.read().execute(
            "SELECT entity_id FROM profiles WHERE project_id = ? AND entity_type = 'user' ORDER BY entity_id",
            (project_id,),
        )
        return [r[0] for r in rows]

    def save_profile(self, profile: Profile) -> None:
        with self._db.write() as conn:
            conn.execute(
                f"INSERT OR REPLACE INTO profiles ({_PROFILE}) VALUES ({', '.join('?' * 10)})",
                (
                    profile.project_id,
                    profile.entity_type,
                    profile.entity_id,
                    profile.status.value,
                    json.dumps(profile.profile),
                    json.dumps(profile.sources),
                    profile.reason,
                    iso(profile.updated_at) if profile.updated_at else None,
                    profile.generation_count,
                    profile.stamp,
                ),
            )

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
