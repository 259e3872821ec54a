"""The profile service acting for a signed-in person: any member reads the settings, a profile and a job; only an
OWNER changes the settings or starts a generation (403 for a READER, nothing changed); someone without a role in
the project gets a 404; a deployment without profiles a 503 — the API's rules, over the embedded platform."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from mnemo.composition.container import Container
from mnemo.console.member_profiles import MemberProfiles
from mnemo.domain.tenancy import PlatformUser, Role
from mnemo.errors import NotFoundError, PermissionDeniedError, UnavailableError
from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.platform.unavailable import Unavailable


@dataclass
class Project:
    platform: PlatformFeatures
    owner: PlatformUser
    reader: PlatformUser
    stranger: PlatformUser
    org_id: str
    project_id: str

    def as_(self, user: PlatformUser) -> MemberProfiles:
        return MemberProfiles(self.platform.tenancy, self.platform.profiles, user, self.org_id, self.project_id)


@pytest.fixture
def project(container: Container) -> Project:
    platform = container.platform
    tenancy = platform.tenancy
    made = tenancy.bootstrap("owner@example.com", "acme")
    tenancy.bootstrap("reader@example.com", "reader's own")
    tenancy.add_project_member(made.org.id, made.project.id, made.user, "reader@example.com", Role.READER.value)
    members = tenancy.project_members(made.org.id, made.project.id, made.user)
    reader = next(m.user for m in members if m.user.email == "reader@example.com")
    stranger = tenancy.bootstrap("stranger@example.com", "elsewhere").user
    return Project(platform, made.user, reader, stranger, made.org.id, made.project.id)


def test_an_owner_changes_the_settings_and_a_reader_reads_them(project: Project) -> None:
    project.as_(project.owner).update_settings({"enabled": True, "entities": {"user": {"min_memories": 4}}})
    settings = project.as_(project.reader).settings()
    assert settings.enabled is True and settings.min_memories == 4


def test_a_reader_cannot_change_the_settings_nor_start_a_generation(project: Project) -> None:
    reader = project.as_(project.reader)
    with pytest.raises(PermissionDeniedError):
        reader.update_settings({"enabled": True})
    with pytest.raises(PermissionDeniedError):
        reader.generate("ana")
    assert project.as_(project.owner).settings().enabled is False


def test_someone_without_a_role_in_the_project_finds_nothing(project: Project) -> None:
    stranger = project.as_(project.stranger)
    with pytest.raises(NotFoundError):
        stranger.settings()
    with pytest.raises(NotFoundError):
        stranger.profile("ana")
    with pytest.raises(NotFoundError):
        stranger.job("some-job")


def test_a_generation_is_a_trigger_job_any_member_follows(project: Project) -> None:
    owner = project.as_(project.owner)
    owner.update_settings({"enabled": True})
    with pytest.raises(NotFoundError):  # a user the project has never seen, as the API answers
        owner.generate("ana")
    project.platform.entities.create(project.project_id, "user", "ana")
    answer = owner.generate("ana")
    assert answer.body["operation"] == "trigger" and answer.body["entity_count_reserved"] == 1
    job = project.as_(project.reader).job(answer.body["job_id"])
    assert job.entity_ids == ("ana",)
    assert project.as_(project.reader).profile("ana").entity_id == "ana"


def test_a_deployment_without_profiles_answers_unavailable(project: Project) -> None:
    without = MemberProfiles(
        project.platform.tenancy, Unavailable("No profiles here."), project.owner, project.org_id, project.project_id
    )
    with pytest.raises(UnavailableError) as refused:
        without.settings()
    assert refused.value.message == "No profiles here."
