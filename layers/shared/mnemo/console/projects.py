"""A project: its page (where switching to it leads), renaming it, deleting it after typing its name, and the
navigation of its sections. Every project page reads the project as the signed-in person sees it (their role
decides which write controls show; the services refuse a READER's write whatever the page showed)."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.limits import MAX_NAME
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.tenancy import Role
from mnemo.errors import ValidationError
from mnemo.services.platform.tenancy.callers import ProjectDetails

PROJECT = "/orgs/{org_id}/projects/{project_id}"

# The sections of a project, as the navigation names them: (label, path under the project)
SECTIONS = (
    ("Memories", "memories"),
    ("Entities", "entities"),
    ("Events", "events"),
    ("API keys", "keys"),
    ("Members", "members"),
    ("Webhooks", "webhooks"),
    ("Profiles", "profiles"),
    ("Dream", "dream"),
    ("Usage", "usage"),
    ("Settings", "settings"),
)


@dataclass(frozen=True, slots=True)
class ProjectView:
    """What every project page shows around its content: the project, the person's role, the navigation."""

    org_id: str
    details: ProjectDetails
    section: str

    @property
    def base(self) -> str:
        return f"/orgs/{self.org_id}/projects/{self.details.project.id}"

    @property
    def owner(self) -> bool:
        return self.details.role is Role.OWNER

    @property
    def sections(self) -> tuple[tuple[str, str], ...]:
        return SECTIONS


def project_view(visit: Visit, section: str) -> ProjectView:
    org_id = visit.param("org_id")
    details = visit.platform.tenancy.project(org_id, visit.param("project_id"), visit.session.user)
    return ProjectView(org_id, details, section)


def _overview(visit: Visit) -> Response:
    return visit.page("project.html", project=project_view(visit, ""))


def _rename(visit: Visit) -> Response:
    view = project_view(visit, "")
    name = visit.field("name")
    if not name or len(name) > MAX_NAME:
        raise ValidationError(f"A project's name has 1 to {MAX_NAME} characters.")
    visit.platform.tenancy.update_project(view.org_id, view.details.project.id, visit.session.user, {"name": name})
    return visit.done(view.base + "/", "Project renamed.")


def _delete(visit: Visit) -> Response:
    view = project_view(visit, "")
    name = view.details.project.name
    if visit.request.method == "GET":
        return visit.page("confirm_delete.html", kind="project", name=name, project=view)
    if visit.field("confirm") != name:
        raise ValidationError("Type the project's name exactly to delete it.")
    visit.platform.tenancy.delete_project(view.org_id, view.details.project.id, visit.session.user)
    return visit.done("/", f"Project {name} deleted, with all its data.")


ROUTES = [
    Route(PROJECT + "/", signed_in(_overview), methods=["GET"]),
    Route(PROJECT + "/rename", signed_in(_rename), methods=["POST"]),
    Route(PROJECT + "/delete", signed_in(_delete), methods=["GET", "POST"]),
]
