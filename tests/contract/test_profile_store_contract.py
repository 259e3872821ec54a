"""The ProfileStore contract: every adapter of the port must pass this one suite.

To add an adapter, write a context manager that builds it on a fresh, empty backend and register it in ADAPTERS.
What it holds: a project's settings kept whole (a schema of None stays None); one profile per (project, entity),
replaced on save; a generation claimed once per burst of changes (claim_generation, finish_generation); jobs
kept whole, found only within their project, one per project and Idempotency-Key (the second add of a key returns
the first job); a project's deletion takes its settings, profiles and jobs.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from mnemo.adapters.dynamodb.profile_store import DynamoProfileStore
from mnemo.adapters.sqlite.profile_store import SqliteProfileStore
from mnemo.domain.profiles import JobStatus, Profile, ProfileJob, ProfileSettings, ProfileStatus
from mnemo.ports.profile_store import ProfileStore
from tests.support.store_backends import Backend, adapter_fixture, on_accounts_table, on_sqlite

T0 = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)
S = timedelta(seconds=1)
M = timedelta(minutes=1)


ADAPTERS: dict[str, Backend[ProfileStore]] = {
    "sqlite": on_sqlite(SqliteProfileStore),
    "dynamodb": on_accounts_table(DynamoProfileStore, one_call_at_a_time=True),
}
store = adapter_fixture(ADAPTERS)


def job(job_id: str = "j1", project_id: str = "p1", key: str | None = "k1", **fields: object) -> ProfileJob:
    base = ProfileJob(
        job_id, project_id, "trigger", "user", ("alice",), JobStatus.QUEUED, T0, T0, key, "h1", {"job_id": job_id}
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def test_settings_are_kept_whole_per_project(store: ProfileStore) -> None:
    assert store.get_settings("p1") is None
    schema = {"type": "object", "properties": {"name": {"type": "string", "description": "The name."}}}
    store.save_settings(ProfileSettings("p1", True, schema, "Be brief.", min_memories=3))
    store.save_settings(ProfileSettings("p2"))
    assert store.get_settings("p1") == ProfileSettings("p1", True, schema, "Be brief.", min_memories=3)
    assert store.get_settings("p2") == ProfileSettings("p2", False, None, None)
    store.save_settings(ProfileSettings("p1", False, None, None))
    assert store.get_settings("p1") == ProfileSettings("p1")


def test_one_profile_per_project_and_entity(store: ProfileStore) -> None:
    first = Profile(
        "p1",
        "user",
        "alice",
        ProfileStatus.SUCCEEDED,
        {"name": "Alice"},
        {"name": ["m1"]},
        None,
        T0,
        1,
        "s1",
        changed_at=T0 - S,
        read_at=T0,
    )
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


def test_job_by_key_within_the_project(store: ProfileStore) -> None:
    assert store.job_by_key("p1", "k1") is None
    made = store.add_job(job())
    assert store.job_by_key("p1", "k1") == made
    assert store.job_by_key("p2", "k1") is None


def test_a_claim_makes_a_profile_pending_once(store: ProfileStore) -> None:
    assert store.claim_generation("p1", "user", "alice", at=T0, reclaim_before=T0 - M, changed_at=T0)
    made = store.get_profile("p1", "user", "alice")
    assert made is not None
    assert (made.status, made.queued_at, made.changed_at, made.profile) == (ProfileStatus.PENDING, T0, T0, {})
    # A generation is queued: later changes are recorded, and claim nothing.
    assert not store.claim_generation("p1", "user", "alice", at=T0 + S, reclaim_before=T0 - M, changed_at=T0 + S)
    assert not store.claim_generation("p1", "user", "alice", at=T0 + S, reclaim_before=T0 - M)
    again = store.get_profile("p1", "user", "alice")
    assert again is not None and (again.queued_at, again.changed_at) == (T0, T0 + S)
    # An older change does not move the recorded one back.
    store.claim_generation("p1", "user", "alice", at=T0 + S, reclaim_before=T0 - M, changed_at=T0)
    assert store.get_profile("p1", "user", "alice").changed_at == T0 + S  # type: ignore[union-attr]
    # A claim older than reclaim_before (its generation was lost) is claimed anew.
    assert store.claim_generation("p1", "user", "alice", at=T0 + 2 * M, reclaim_before=T0 + M)
    assert store.get_profile("p1", "user", "alice").queued_at == T0 + 2 * M  # type: ignore[union-attr]
    assert store.claim_generation("p2", "user", "alice", at=T0, reclaim_before=T0 - M)  # another project


def test_a_claim_keeps_the_last_good_profile(store: ProfileStore) -> None:
    good = Profile("p1", "user", "alice", ProfileStatus.SUCCEEDED, {"name": "Alice"}, {"name": ["m1"]}, None, T0, 2)
    store.save_profile(good)
    assert store.claim_generation("p1", "user", "alice", at=T0 + S, reclaim_before=T0, changed_at=T0 + S)
    pending = store.get_profile("p1", "user", "alice")
    assert pending == replace(good, status=ProfileStatus.PENDING, queued_at=T0 + S, changed_at=T0 + S)


def test_finishing_a_generation_ends_its_claim(store: ProfileStore) -> None:
    store.claim_generation("p1", "user", "alice", at=T0, reclaim_before=T0 - M, changed_at=T0)
    made = Profile("p1", "user", "alice", ProfileStatus.SUCCEEDED, {"name": "Alice"}, {"name": ["m1"]}, None, T0 + S, 1)
    assert not store.finish_generation(made, read_at=T0 + S)
    stored = store.get_profile("p1", "user", "alice")
    assert stored == replace(made, changed_at=T0, read_at=T0 + S, queued_at=None)
    # A change the generation saw (before it read) claims nothing.
    assert not store.claim_generation("p1", "user", "alice", at=T0 + 2 * S, reclaim_before=T0, changed_at=T0 + S)
    assert store.get_profile("p1", "user", "alice").status == ProfileStatus.SUCCEEDED  # type: ignore[union-attr]
    # One it did not see does.
    assert store.claim_generation("p1", "user", "alice", at=T0 + 3 * S, reclaim_before=T0, changed_at=T0 + 3 * S)


def test_a_change_during_a_generation_keeps_the_claim(store: ProfileStore) -> None:
    store.claim_generation("p1", "user", "alice", at=T0, reclaim_before=T0 - M, changed_at=T0)
    # The generation reads at T0 + 1 s; a change comes at T0 + 2 s; it finishes at T0 + 3 s.
    assert not store.claim_generation(
        "p1", "user", "alice", at=T0 + 2 * S, reclaim_before=T0 - M, changed_at=T0 + 2 * S
    )
    made = Profile(
        "p1", "user", "alice", ProfileStatus.SUCCEEDED, {"name": "Alice"}, {"name": ["m1"]}, None, T0 + 3 * S, 1
    )
    assert store.finish_generation(made, read_at=T0 + S)
    stored = store.get_profile("p1", "user", "alice")
    assert stored is not None
    assert (stored.status, stored.profile, stored.generation_count) == (ProfileStatus.PENDING, {"name": "Alice"}, 1)
    assert (stored.queued_at, stored.changed_at, stored.read_at) == (T0 + 3 * S, T0 + 2 * S, T0 + S)


def test_saving_the_content_keeps_a_claim_made_since(store: ProfileStore) -> None:
    big = {"facts": [f"fact {i} " + "x" * 200 for i in range(100)]}  # stored compressed on DynamoDB
    good = Profile("p1", "user", "alice", ProfileStatus.SUCCEEDED, big, {"facts": ["m1", "m2"]}, None, T0, 2)
    store.save_profile(good)
    read = store.get_profile("p1", "user", "alice")
    assert read == good
    # A delete's regeneration is claimed between the scrub's read and its write.
    assert store.claim_generation("p1", "user", "alice", at=T0 + S, reclaim_before=T0, changed_at=T0 + S)
    assert store.save_content(replace(read, profile={"name": "Alice"}, sources={"name": ["m2"]}))
    stored = store.get_profile("p1", "user", "alice")
    assert stored == replace(
        good,
        profile={"name": "Alice"},
        sources={"name": ["m2"]},
        status=ProfileStatus.PENDING,
        queued_at=T0 + S,
        changed_at=T0 + S,
    )


def test_saving_the_content_after_a_generation_or_a_delete_writes_nothing(store: ProfileStore) -> None:
    read = Profile("p1", "user", "alice", ProfileStatus.SUCCEEDED, {"name": "Alice"}, {"name": ["m1"]}, None, T0, 1)
    store.save_profile(read)
    generated = replace(read, profile={"name": "Alice B"}, sources={"name": ["m2"]}, updated_at=T0 + S)
    store.save_profile(generated)
    assert not store.save_content(replace(read, profile={}, sources={}))
    assert store.get_profile("p1", "user", "alice") == generated
    store.delete_profile("p1", "user", "alice")
    assert not store.save_content(replace(generated, profile={}, sources={}))
    assert store.get_profile("p1", "user", "alice") is None
    never = replace(read, entity_id="bob", updated_at=None)
    assert not store.save_content(never)
    assert store.get_profile("p1", "user", "bob") is None


def test_a_profile_deleted_during_its_generation_stays_deleted(store: ProfileStore) -> None:
    store.claim_generation("p1", "user", "alice", at=T0, reclaim_before=T0 - M, changed_at=T0)
    # The generation reads at T0 + 1 s; the user is erased; it finishes at T0 + 3 s.
    store.delete_profile("p1", "user", "alice")
    made = Profile("p1", "user", "alice", ProfileStatus.SUCCEEDED, {"name": "Alice"}, {"name": ["m1"]}, None, T0, 1)
    assert not store.finish_generation(made, read_at=T0 + S)  # nothing to queue
    assert store.get_profile("p1", "user", "alice") is None
    # Also when a change came during the generation (the claim's second, "claimed anew" update).
    store.claim_generation("p1", "user", "bob", at=T0, reclaim_before=T0 - M, changed_at=T0)
    store.claim_generation("p1", "user", "bob", at=T0 + 2 * S, reclaim_before=T0 - M, changed_at=T0 + 2 * S)
    store.delete_profile("p1", "user", "bob")
    assert not store.finish_generation(replace(made, entity_id="bob"), read_at=T0 + S)
    assert store.get_profile("p1", "user", "bob") is None


def test_pending_profiles_of_every_project(store: ProfileStore) -> None:
    store.claim_generation("p1", "user", "alice", at=T0, reclaim_before=T0)
    store.claim_generation("p2", "user", "bob", at=T0, reclaim_before=T0)
    store.save_profile(Profile("p1", "user", "carol", ProfileStatus.SUCCEEDED))
    assert sorted((p.project_id, p.entity_id) for p in store.pending_profiles()) == [("p1", "alice"), ("p2", "bob")]


def test_unfinished_jobs_of_every_project(store: ProfileStore) -> None:
    store.add_job(job("j1", project_id="p1", key="a"))
    store.add_job(job("j2", project_id="p2", key="b", status=JobStatus.RUNNING))
    store.add_job(job("j3", project_id="p2", key="c", status=JobStatus.SUCCEEDED))
    assert sorted(j.id for j in store.unfinished_jobs()) == ["j1", "j2"]
