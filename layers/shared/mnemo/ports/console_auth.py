"""The console's sign-in, as the web console sees it: people (platform users) with a password, sessions, the
CSRF token of each session, and invitations accepted by setting a password.

A port because two sides meet here: the web console (mnemo.console) drives it, and the platform's account
service implements it over the tenancy store; the console's own tests use a small fake of it. The session id
and the invitation token are secrets: they are shown once (to the browser, to the inviter) and stored only
hashed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from mnemo.domain.tenancy import PlatformUser, Role


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    """A signed-in browser. `session_id` goes in the HttpOnly cookie; `csrf_token` must come back with every
    state-changing request of the session (a form field or the `X-CSRF-Token` header)."""

    session_id: str
    user: PlatformUser
    csrf_token: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Invitation:
    """A pending invitation of `email` to an organization (`project_id` None) or one of its projects. `token` is
    the one-time secret of the accept link; it is set only on the value `invite` returns."""

    id: str
    email: str
    org_id: str
    project_id: str | None
    role: Role
    invited_by: str
    created_at: datetime
    expires_at: datetime
    token: str | None = None


class ConsoleAuth(Protocol):
    def sign_in(self, email: str, password: str, client: str) -> ConsoleSession:
        """A new session for the user whose password this is. AuthenticationError for a wrong email or password
        (one message for both); RateLimitedError after too many failures for this email or this client (`client`:
        the caller's address)."""
        ...

    def session(self, session_id: str) -> ConsoleSession | None:
        """The live session of this id; None when unknown, signed out or expired."""
        ...

    def sign_out(self, session_id: str) -> None:
        """End the session (idempotent)."""
        ...

    def change_password(self, session_id: str, current: str, new: str) -> None:
        """Set a new password (ValidationError when too weak, AuthenticationError when `current` is wrong); every
        other session of the user ends."""
        ...

    def invite(self, inviter: PlatformUser, org_id: str, project_id: str | None, email: str, role: Role) -> Invitation:
        """Invite `email` (a user with no password yet, or an existing user) with `role`; the inviter must be an
        OWNER there. The returned invitation carries its one-time `token`."""
        ...

    def invitations(self, user: PlatformUser, org_id: str, project_id: str | None) -> list[Invitation]:
        """The pending invitations of an organization or project (tokens not included)."""
        ...

    def revoke_invitation(self, user: PlatformUser, org_id: str, invitation_id: str) -> None: ...

    def invitation(self, token: str) -> Invitation | None:
        """The pending, unexpired invitation of this token, else None."""
        ...

    def accept(self, token: str, password: str, client: str) -> ConsoleSession:
        """Accept the invitation: the user's password is set (for a new user), the membership made, the token
        spent, and a session begun. NotFoundError for an unknown, spent or expired token."""
        ...
