"""A project's entities: every user, agent, app and run that owns memories (or was created through the API), with
its memory count and a link to its memories; deleting one with its memories, after a page that names what goes."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mnemo.console.projects import PROJECT, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.tenancy import Role


def _list(visit: Visit) -> Response:
    view = project_view(visit, "entities")
    listed = visit.platform.entities.listed(view.details.project.id)
    return visit.page("entities.html", project=view, entities=listed)


def _delete(visit: Visit) -> Response:
    view = project_view(visit, "entities")
    user = visit.session.user
    project = visit.platform.tenancy.authorized_project(view.org_id, view.details.project.id, user, Role.OWNER)
    chosen = visit.request.query_params if visit.request.method == "GET" else visit.form
    kind, entity_id = chosen.get("type", ""), chosen.get("id", "")  # ids may hold a slash: never in the path
    if visit.request.method == "GET":
        entity = visit.platform.entities.one(project.id, kind, entity_id)
        return visit.page("confirm_delete_entity.html", project=view, entity=entity)
    deleted = visit.platform.entities.delete(project.id, kind, entity_id)
    return visit.done(view.base + "/entities", f"The {kind} {entity_id} is deleted, with {deleted.count} memories.")


ROUTES = [
    Route(PROJECT + "/entities", signed_in(_list), methods=["GET"]),
    Route(PROJECT + "/entities/delete", signed_in(_delete), methods=["GET", "POST"]),
]
