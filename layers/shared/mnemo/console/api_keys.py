"""A project's API keys: the list with each key's prefix, owner and last use, creating one (its value shown this
once, with a copy button: the answer to the post is that page, never stored or shown again) and revoking one. Only
an OWNER sees or changes them, as in the API."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.limits import MAX_NAME
from mnemo.console.projects import PROJECT, project_view
from mnemo.console.visits import Visit, signed_in
from mnemo.errors import ValidationError


def _page(visit: Visit, created: str | None = None) -> Response:
    view = project_view(visit, "keys")
    keys = None
    if view.owner:
        keys = visit.platform.tenancy.keys(view.org_id, view.details.project.id, visit.session.user)
        keys.sort(key=lambda found: found.key.created_at, reverse=True)
    return visit.page("keys.html", project=view, keys=keys, created=created)


def _list(visit: Visit) -> Response:
    return _page(visit)


def _create(visit: Visit) -> Response:
    label = visit.field("label")
    if len(label) > MAX_NAME:
        raise ValidationError(f"A key's label has at most {MAX_NAME} characters.")
    made = visit.platform.tenancy.create_key(
        visit.param("org_id"), visit.param("project_id"), visit.session.user, None, label
    )
    return _page(visit, created=made.value)


def _revoke(visit: Visit) -> Response:
    view = project_view(visit, "keys")
    visit.platform.tenancy.revoke_key(view.org_id, view.details.project.id, visit.session.user, visit.param("key_id"))
    return visit.done(view.base + "/keys", "API key revoked.")


ROUTES = [
    Route(PROJECT + "/keys", signed_in(_list), methods=["GET"]),
    Route(PROJECT + "/keys", signed_in(_create), methods=["POST"]),
    Route(PROJECT + "/keys/{key_id}/revoke", signed_in(_revoke), methods=["POST"]),
]
