"""Where a platform project's profile settings, profiles and profile jobs are kept (mnemo.domain.profiles)."""

from __future__ import annotations

from typing import Protocol

from mnemo.domain.profiles import Profile, ProfileJob, ProfileSettings


class ProfileStore(Protocol):
    def get_settings(self, project_id: str) -> ProfileSettings | None: ...

    def save_settings(self, settings: ProfileSettings) -> None: ...

    def enabled_projects(self) -> list[str]:
        """The projects whose profiles are enabled."""
        ...

    def get_profile(self, project_id: str, entity_type: str, entity_id: str) -> Profile | None: ...

    def profiled_users(self, project_id: str) -> list[str]:
        """The ids of the users of the project who have a profile stored."""
        ...

    def save_profile(self, profile: Profile) -> None: ...

    def delete_profile(self, project_id: str, entity_type: str, entity_id: str) -> None: ...

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
