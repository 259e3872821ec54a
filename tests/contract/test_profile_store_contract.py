"""The ProfileStore contract: every adapter of the port must pass this one suite.

To add an adapter, write a context manager that builds it on a fresh, empty backend and register it in ADAPTERS.
What it holds: a project's settings kept whole (a schema of None stays None); one profile per (project, entity),
replaced on save; jobs kept whole, found only within their project, one per project and Idempotency-Key (the
second add of a key returns the first job); a project's deletion takes its settings, profiles and jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.profile_store import SqliteProfileStore
from mnemo.domain.profiles import JobStatus, Profile, ProfileJob, ProfileSettings, ProfileStatus
from mnemo.ports.profile_store import ProfileStore

T0 = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)


@contextmanager
def sqlite_store(tmp_path: Path) -> Iterator[ProfileStore]:
    database = Database(tmp_path / "main.sqlite3")
    try:
        yield SqliteProfileStore(database)
    finally:
        database.close()


ADAPTERS: dict[str, Callable[[Path], AbstractContextManager[ProfileStore]]] = {"sqlite": sqlite_store}


@pytest.fixture(params=sorted(ADAPTERS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ProfileStore]:
    with ADAPTERS[request.param](tmp_path) as built:
        yield built


def job(job_id: str = "j1", project_id: str = "p1", key: str | None = "k1", **fields: object) -> ProfileJob:
    base = ProfileJob(
        job_id, project_id, "trigger", "user", ("alice",), JobStatus.QUEUED, T0, T0, key, "h1", {"job_id": job_id}
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def test_settings_are_kept_whole_per_project(store: ProfileStore) -> None:
    assert store.get_settings("p1") is None
    schema = {"type": "object", "properties": {"name": {"type": "string", "description": "The name."}}}
    store.save_settings(ProfileSettings("p1", True, schema, "Be brief."))
    store.save_settings(ProfileSettings("p2"))
    assert store.get_settings("p1") == ProfileSettings("p1", True, schema, "Be brief.")
    assert store.get_settings("p2") == ProfileSettings("p2", False, None, None)
    store.save_settings(ProfileSettings("p1", False, None, None))
    assert store.get_settings("p1") == ProfileSettings("p1")


def test_one_profile_per_project_and_entity(store: ProfileStore) -> None:
    first = Profile("p1", "user", "alice", ProfileStatus.SUCCEEDED, {"name": "Alice"}, {"name": ["m1"]}, None, T0, 1)
    store.save_profile(first)
    assert store.get_profile("p1", "user", "alice") == first
    assert store.get_profile("p2", "user", "alice") is None
    pending = replace(first, status=ProfileStatus.PENDING)
    store.save_profile(pending)
    assert store.get_profile("p1", "user", "alice") == pending
    store.delete_profile("p1", "user", "alice")
    assert store.get_profile("p1", "user", "alice") is None


def test_jobs_are_kept_whole_within_their_project(store: ProfileStore) -> None:
    made = job(entity_ids=("a", "b"), total=2)
    assert store.add_job(made) == made
    assert store.get_job("p1", "j1") == made
    assert store.get_job("p2", "j1") is None
    progressed = replace(made, status=JobStatus.SUCCEEDED, completed=2, succeeded=1, skipped=1, updated_at=T0)
    store.save_job(progressed)
    assert store.get_job("p1", "j1") == progressed


def test_an_idempotency_key_makes_one_job_per_project(store: ProfileStore) -> None:
    first = store.add_job(job("j1"))
    assert store.add_job(job("j2", request_hash="other")) == first
    assert store.get_job("p1", "j2") is None
    assert store.add_job(job("j3", project_id="p2")).id == "j3"  # another project: its own key space
    assert store.add_job(job("j4", key=None)).id == "j4"


def test_deleting_a_project_takes_its_profiles_settings_and_jobs(store: ProfileStore) -> None:
    for project in ("p1", "p2"):
        store.save_settings(ProfileSettings(project, True))
        store.save_profile(Profile(project, "user", "alice", ProfileStatus.PENDING))
        store.add_job(job(f"j-{project}", project_id=project))
    store.delete_project("p1")
    assert store.get_settings("p1") is None
    assert store.get_profile("p1", "user", "alice") is None
    assert store.get_job("p1", "j-p1") is None
    assert store.get_settings("p2") is not None
    assert store.get_profile("p2", "user", "alice") is not None
    assert store.get_job("p2", "j-p2") is not None


def test_enabled_projects_and_profiled_users(store: ProfileStore) -> None:
    store.save_settings(ProfileSettings("p2", True))
    store.save_settings(ProfileSettings("p1", True))
    store.save_settings(ProfileSettings("p3", False))
    assert store.enabled_projects() == ["p1", "p2"]
    for user in ("bob", "alice"):
        store.save_profile(Profile("p1", "user", user, ProfileStatus.PENDING))
    store.save_profile(Profile("p2", "user", "carol", ProfileStatus.PENDING))
    assert store.profiled_users("p1") == ["alice", "bob"]
    assert store.job_by_key("p1", "k1") is None
    made = store.add_job(job())
    assert store.job_by_key("p1", "k1") == made
    assert store.job_by_key("p2", "k1") is None


def test_unfinished_jobs_of_every_project(store: ProfileStore) -> None:
    store.add_job(job("j1", project_id="p1", key="a"))
    store.add_job(job("j2", project_id="p2", key="b", status=JobStatus.RUNNING))
    store.add_job(job("j3", project_id="p2", key="c", status=JobStatus.SUCCEEDED))
    assert sorted(j.id for j in store.unfinished_jobs()) == ["j1", "j2"]
