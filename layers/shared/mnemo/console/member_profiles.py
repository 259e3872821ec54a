"""The profile service acting for a signed-in person with their role in a project.

`ProfileService` takes a project id and trusts whoever calls it: the API authorizes the caller's key first (any
member reads the settings, a profile and a job; an OWNER changes the settings and starts a job). The console holds
no key, so this adapter asks the tenancy service for the person's role in the project first, with the same rules
(404 for someone without a role, 403 for a READER's write), and only then calls the service on that project. A
deployment without profiles answers 503, as the API does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo.domain.profiles import ENTITY_USER, Profile, ProfileJob, ProfileSettings
from mnemo.domain.tenancy import PlatformUser, Project, Role
from mnemo.errors import UnavailableError
from mnemo.services.platform.profiles.job_requests import JobAnswer
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.unavailable import Unavailable


class MemberProfiles:
    """One project's profiles as one person may see and change them."""

    def __init__(
        self,
        tenancy: TenancyService,
        profiles: ProfileService | Unavailable,
        user: PlatformUser,
        org_id: str,
        project_id: str,
    ) -> None:
        self._tenancy = tenancy
        self._profiles = profiles
        self._user = user
        self._org_id = org_id
        self._project_id = project_id

    def _authorized(self, needed: Role) -> tuple[ProfileService, Project]:
        project = self._tenancy.authorized_project(self._org_id, self._project_id, self._user, needed)
        if isinstance(self._profiles, Unavailable):
            raise UnavailableError(self._profiles.reason)
        return self._profiles, project

    def settings(self) -> ProfileSettings:
        service, project = self._authorized(Role.READER)
        return service.settings(project.id)

    def update_settings(self, body: Mapping[str, Any]) -> ProfileSettings:
        """POST /v2/profiles/settings/'s semantics and checks (an OWNER's)."""
        service, project = self._authorized(Role.OWNER)
        return service.update_settings(project.id, body)

    def profile(self, user_id: str) -> Profile:
        service, project = self._authorized(Role.READER)
        return service.profile(project.id, ENTITY_USER, user_id)

    def generate(self, user_id: str) -> JobAnswer:
        """A trigger job for the user, as POST /v2/profiles/jobs/ makes one (an OWNER's; no Idempotency-Key)."""
        service, project = self._authorized(Role.OWNER)
        body = {"operation": "trigger", "entity_type": ENTITY_USER, "entity_id": user_id}
        return service.create_job(project.id, body, None)

    def job(self, job_id: str) -> ProfileJob:
        service, project = self._authorized(Role.READER)
        return service.job(project.id, job_id)
