"""A project's members and their roles: the role table, inviting someone (through the sign-in port, which makes
the membership when the invitation is accepted; the accept link is shown once to the OWNER who invited), changing a
member's role, removing a member, and the pending invitations with their revocation."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mnemo.api.limits import MAX_NAME
from mnemo.console.projects import PROJECT, project_view
from mnemo.console.security import is_https
from mnemo.console.visits import Visit, signed_in
from mnemo.domain.tenancy import Role, is_email
from mnemo.errors import ValidationError

ROLES = (
    (Role.READER, "Sees the project: its memories, entities, events, members, settings. Changes nothing."),
    (Role.OWNER, "Everything a READER does, and every change: memories, settings, API keys, members, webhooks."),
)


def _role(visit: Visit) -> Role:
    try:
        return Role(visit.field("role"))
    except ValueError:
        raise ValidationError("Choose a role: READER or OWNER.") from None


def _email(visit: Visit) -> str:
    email = visit.field("email")
    if len(email) > MAX_NAME or not is_email(email):
        raise ValidationError("A valid email is required.")
    return email


def _page(visit: Visit, link: str | None = None) -> Response:
    view = project_view(visit, "members")
    user = visit.session.user
    members = visit.platform.tenancy.project_members(view.org_id, view.details.project.id, user)
    invitations = visit.auth.invitations(user, view.org_id, view.details.project.id) if view.owner else []
    return visit.page(
        "members.html", project=view, members=members, invitations=invitations, roles=ROLES, link=link, me=user
    )


def _list(visit: Visit) -> Response:
    return _page(visit)


def _invite(visit: Visit) -> Response:
    view = project_view(visit, "members")
    email, role = _email(visit), _role(visit)
    invitation = visit.auth.invite(visit.session.user, view.org_id, view.details.project.id, email, role)
    url = visit.request.url
    scheme = "https" if is_https(visit.request) else url.scheme
    link = f"{scheme}://{url.netloc}{visit.request.scope.get('root_path', '')}/accept?token={invitation.token}"
    return _page(visit, link=link)


def _change_role(visit: Visit) -> Response:
    view = project_view(visit, "members")
    email, role = _email(visit), _role(visit)
    visit.platform.tenancy.update_project_member(
        view.org_id, view.details.project.id, visit.session.user, email, role.value
    )
    return visit.done(view.base + "/members", f"{email} is now {role.value}.")


def _remove(visit: Visit) -> Response:
    view = project_view(visit, "members")
    email = _email(visit)
    visit.platform.tenancy.remove_project_member(view.org_id, view.details.project.id, visit.session.user, email)
    return visit.done(view.base + "/members", f"{email} is no longer a member.")


def _revoke(visit: Visit) -> Response:
    view = project_view(visit, "members")
    if not view.owner:
        return visit.page("error.html", 403, message="Only an OWNER can revoke an invitation.")
    visit.auth.revoke_invitation(visit.session.user, view.org_id, visit.param("invitation_id"))
    return visit.done(view.base + "/members", "Invitation revoked.")


ROUTES = [
    Route(PROJECT + "/members", signed_in(_list), methods=["GET"]),
    Route(PROJECT + "/members/invite", signed_in(_invite), methods=["POST"]),
    Route(PROJECT + "/members/role", signed_in(_change_role), methods=["POST"]),
    Route(PROJECT + "/members/remove", signed_in(_remove), methods=["POST"]),
    Route(PROJECT + "/invitations/{invitation_id}/revoke", signed_in(_revoke), methods=["POST"]),
]
