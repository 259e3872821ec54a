"""The home page: the person's organizations and the projects of each (a project's link switches to it; an
organization they reach only through a project shows that project alone, as a project member's), creating
an organization or a project, renaming an organization, and deleting one after typing its name (the API's DELETE has
no undo)."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.limits import MAX_NAME
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.tenancy import Role
from mnemo.errors import ValidationError


def _home(visit: Visit) -> Response:
    """Every organization the person reaches: those they are a member of, and those they reach through a project."""
    orgs = [(found.org, found.projects) for found in visit.platform.tenancy.reached(visit.session.user)]
    return visit.page("home.html", orgs=orgs, owner=Role.OWNER)


def _create_org(visit: Visit) -> Response:
    org = visit.platform.tenancy.create_org(visit.session.user, visit.field("name"))
    return visit.done("/", f"Organization {org.name} created.")


def _create_project(visit: Visit) -> Response:
    org_id = visit.param("org_id")
    project = visit.platform.tenancy.create_project(
        org_id, visit.session.user, visit.field("name"), visit.field("description")
    )
    return visit.done(f"/orgs/{org_id}/projects/{project.id}/", f"Project {project.name} created.")


def _rename_org(visit: Visit) -> Response:
    name = visit.field("name")
    if not name or len(name) > MAX_NAME:
        raise ValidationError(f"An organization's name has 1 to {MAX_NAME} characters.")
    org = visit.platform.tenancy.rename_org(visit.param("org_id"), visit.session.user, name)
    return visit.done("/", f"Organization renamed to {org.name}.")


def _delete_org(visit: Visit) -> Response:
    tenancy = visit.platform.tenancy
    details = tenancy.org(visit.param("org_id"), visit.session.user)
    if visit.request.method == "GET":
        return visit.page("confirm_delete.html", kind="organization", name=details.org.name)
    if visit.field("confirm") != details.org.name:
        raise ValidationError("Type the organization's name exactly to delete it.")
    tenancy.delete_org(details.org.id, visit.session.user)
    return visit.done("/", f"Organization {details.org.name} deleted, with its projects and their data.")


ROUTES = [
    Route("/", signed_in(_home), methods=["GET"]),
    Route("/orgs", signed_in(_create_org), methods=["POST"]),
    Route("/orgs/{org_id}/projects", signed_in(_create_project), methods=["POST"]),
    Route("/orgs/{org_id}/rename", signed_in(_rename_org), methods=["POST"]),
    Route("/orgs/{org_id}/delete", signed_in(_delete_org), methods=["GET", "POST"]),
]
