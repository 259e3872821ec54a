"""A project's Profiles section: the profile settings with the schema editor (checked as the API checks them), a
user's profile with the memories behind each property (each linked to its memory's page), generating one now and
the job's progress. Every read and write goes through `MemberProfiles`, which authorizes the person's role first:
any member reads, an OWNER changes the settings and starts a generation, as in the API."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.limits import MAX_NAME
from mnemo.console.member_profiles import MemberProfiles
from mnemo.console.profile_forms import pretty, properties, schema_text, settings_changes
from mnemo.console.projects import PROJECT, ProjectView, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.profiles import TERMINAL_JOB_STATUSES, default_user_schema
from mnemo.errors import ValidationError
from mnemo.services.platform.profiles.settings import MAX_INSTRUCTIONS

PROFILES = PROJECT + "/profiles"


def _profiles(visit: Visit) -> tuple[ProjectView, MemberProfiles]:
    view = project_view(visit, "profiles")
    platform = visit.platform
    member = MemberProfiles(
        platform.tenancy, platform.profiles, visit.session.user, view.org_id, view.details.project.id
    )
    return view, member


def _user_id(raw: str) -> str:
    if not raw:
        raise ValidationError("Give a user id.")
    if len(raw) > MAX_NAME:
        raise ValidationError(f"A user id has at most {MAX_NAME} characters.")
    return raw


def _stored_values(member: MemberProfiles) -> dict[str, Any]:
    settings = member.settings()
    return {
        "enabled": settings.enabled,
        "schema": schema_text(settings),
        "custom_instructions": settings.custom_instructions or "",
        "min_memories": str(settings.min_memories),
    }


def _page(visit: Visit, view: ProjectView, values: dict[str, Any], error: str | None = None) -> Response:
    return visit.page(
        "profiles.html",
        400 if error else 200,
        project=view,
        values=values,
        error=error,
        default_schema=pretty(default_user_schema()),
        max_instructions=MAX_INSTRUCTIONS,
    )


def _overview(visit: Visit) -> Response:
    view, member = _profiles(visit)
    return _page(visit, view, _stored_values(member))


def _save_settings(visit: Visit) -> Response:
    """The settings saved; a refused form comes back as it was typed, with the API's reason."""
    view, member = _profiles(visit)
    try:
        member.update_settings(settings_changes(visit.form))
    except ValidationError as refused:
        typed = {name: visit.form.get(name, "") for name in ("schema", "custom_instructions", "min_memories")}
        return _page(visit, view, {**typed, "enabled": visit.form.get("enabled") == "on"}, refused.message)
    return visit.done(view.base + "/profiles", "Profile settings saved.")


def _user(visit: Visit) -> Response:
    view, member = _profiles(visit)
    user_id = _user_id(visit.request.query_params.get("user_id", "").strip())
    profile = member.profile(user_id)
    store = visit.platform.project_memory.memory_service(view.details.project.id).store
    shown = properties(profile, store.get_many)
    return visit.page("profile.html", project=view, profile=profile, properties=shown)


def _generate(visit: Visit) -> Response:
    view, member = _profiles(visit)
    answer = member.generate(_user_id(visit.field("user_id")))
    return visit.done(f"{view.base}/profiles/jobs/{answer.body['job_id']}", "Generation queued.")


def _job(visit: Visit) -> Response:
    view, member = _profiles(visit)
    job = member.job(visit.param("job_id"))
    return visit.page("profile_job.html", project=view, job=job, ended=job.status in TERMINAL_JOB_STATUSES)


ROUTES = [
    Route(PROFILES, signed_in(_overview), methods=["GET"]),
    Route(PROFILES + "/settings", signed_in(_save_settings), methods=["POST"]),
    Route(PROFILES + "/user", signed_in(_user), methods=["GET"]),
    Route(PROFILES + "/generate", signed_in(_generate), methods=["POST"]),
    Route(PROFILES + "/jobs/{job_id}", signed_in(_job), methods=["GET"]),
]
