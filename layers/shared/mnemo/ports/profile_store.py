"""Where a platform project's profile settings, profiles and profile jobs are kept (mnemo.domain.profiles).

A profile's generations are claimed in the store, so that a burst of changes, from any number of processes, queues
one generation: `claim_generation` records a change and makes the profile `pending` unless a generation is
queued already; `finish_generation` stores what the generation made and, when a change came after the generation
read the memories, keeps the profile claimed for the next one."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from mnemo.domain.profiles import Profile, ProfileJob, ProfileSettings


class ProfileStore(Protocol):
    def get_settings(self, project_id: str) -> ProfileSettings | None: ...

    def save_settings(self, settings: ProfileSettings) -> None: ...

    def get_profile(self, project_id: str, entity_type: str, entity_id: str) -> Profile | None: ...

    def save_profile(self, profile: Profile) -> None:
        """Replace the profile whole."""
        ...

    def save_content(self, profile: Profile) -> bool:
        """Store `profile`'s content (`profile` and `sources`: what an erasure cut out) and keep the rest as stored,
        so a claim made since the profile was read stays — while its `updated_at` is still the stored one (no
        generation stored another content since). False, nothing written: the profile is gone, or a generation
        stored since (the caller reads it again)."""
        ...

    def delete_profile(self, project_id: str, entity_type: str, entity_id: str) -> None: ...

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
        """Claim the next generation of the profile, in one atomic step: first `changed_at` (a change of the user's
        memories; None for a request that is no change) is recorded, when later than the one stored. Then the
        profile becomes `pending`, queued at `at` (its content kept; a profile created when there is none) —
        unless it is pending already with a claim made at or after `reclaim_before` (a generation is queued and
        will read the change), or the last generation read the memories at or after `changed_at` (it saw the
        change). Whether this call claimed it: the caller then queues one generation."""
        ...

    def finish_generation(self, profile: Profile, read_at: datetime) -> bool:
        """Store what a generation made (`profile`, whose `changed_at` is ignored: the stored one is kept) with
        `read_at`, when it read the memories, and end the claim. When a change recorded after `read_at` is stored,
        the profile stays `pending`, claimed anew at `profile.updated_at`, and True is returned: the caller queues
        the next generation. A profile deleted meanwhile (its user erased) is not stored again: False."""
        ...

    def pending_profiles(self) -> list[Profile]:
        """Every pending profile, of any project (a restart of the local worker queues them again)."""
        ...

    def add_job(self, job: ProfileJob) -> ProfileJob:
        """Stores the job, unless the project already has a job of the job's Idempotency-Key: then that job is
        returned (and nothing stored). Returns the job stored."""
        ...

    def job_by_key(self, project_id: str, idempotency_key: str) -> ProfileJob | None: ...

    def get_job(self, project_id: str, job_id: str) -> ProfileJob | None: ...

    def save_job(self, job: ProfileJob) -> None: ...

    def unfinished_jobs(self) -> list[ProfileJob]:
        """Every job, of any project, still queued or running (oldest first)."""
        ...

    def delete_project(self, project_id: str) -> None:
        """The project's settings, profiles and jobs."""
        ...
