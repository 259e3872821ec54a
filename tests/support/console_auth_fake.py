"""An in-memory ConsoleAuth (mnemo.ports.console_auth) for the console's tests: passwords kept beside the users of
a real TenancyService, sessions and invitations in dictionaries, and the port's documented behaviour (one message
for a wrong email or password, a rate limit after repeated failures, other sessions ended by a password change, an
invitation's token spent by its acceptance). The real service (the platform's accounts) replaces it in the served
app; this fake keeps the console's tests independent of it. Secrets are kept hashed, as the port says."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from mnemo.domain.tenancy import PlatformUser, Role, normal_email
from mnemo.errors import AuthenticationError, NotFoundError, PermissionDeniedError, RateLimitedError, ValidationError
from mnemo.ports.console_auth import ConsoleSession, Invitation
from mnemo.services.platform.tenancy.service import TenancyService

WRONG_CREDENTIALS = "Wrong email or password."
MAX_FAILURES = 5
MIN_PASSWORD = 10


def _hashed(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Stored:
    user: PlatformUser
    csrf_token: str
    expires_at: datetime


class FakeConsoleAuth:
    """`clock` decides expiry (a test moves it on to expire sessions)."""

    def __init__(
        self,
        tenancy: TenancyService,
        *,
        session_length: timedelta = timedelta(hours=8),
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self._tenancy = tenancy
        self._length = session_length
        self.clock = clock
        self._passwords: dict[str, tuple[PlatformUser, str]] = {}  # email -> (user, password hash)
        self._sessions: dict[str, _Stored] = {}  # session id hash -> session
        self._invitations: dict[str, tuple[Invitation, PlatformUser]] = {}  # token hash -> (invitation, inviter)
        self._failures: dict[str, int] = {}

    def set_password(self, user: PlatformUser, password: str) -> None:
        """What the platform's account service does at sign-up: the test's way to make a user who can sign in."""
        self._passwords[normal_email(user.email)] = (user, _hashed(password))

    def sign_in(self, email: str, password: str, client: str) -> ConsoleSession:
        address = normal_email(email)
        if max(self._failures.get(address, 0), self._failures.get(client, 0)) >= MAX_FAILURES:
            raise RateLimitedError("Too many failed sign-ins; try again later.", retry_after=60)
        found = self._passwords.get(address)
        if found is None or not secrets.compare_digest(found[1], _hashed(password)):
            for who in (address, client):
                self._failures[who] = self._failures.get(who, 0) + 1
            raise AuthenticationError(WRONG_CREDENTIALS)
        return self._begin(found[0])

    def session(self, session_id: str) -> ConsoleSession | None:
        stored = self._sessions.get(_hashed(session_id))
        if stored is None or stored.expires_at <= self.clock():
            return None
        return ConsoleSession(session_id, stored.user, stored.csrf_token, stored.expires_at)

    def sign_out(self, session_id: str) -> None:
        self._sessions.pop(_hashed(session_id), None)

    def change_password(self, session_id: str, current: str, new: str) -> None:
        live = self.session(session_id)
        if live is None:
            raise AuthenticationError("Sign in again.")
        address = normal_email(live.user.email)
        if not secrets.compare_digest(self._passwords[address][1], _hashed(current)):
            raise AuthenticationError("The current password is wrong.")
        if len(new) < MIN_PASSWORD:
            raise ValidationError(f"A password needs at least {MIN_PASSWORD} characters.")
        self._passwords[address] = (live.user, _hashed(new))
        kept = _hashed(session_id)
        for key in [key for key, stored in self._sessions.items() if stored.user.id == live.user.id]:
            if key != kept:
                del self._sessions[key]

    def invite(self, inviter: PlatformUser, org_id: str, project_id: str | None, email: str, role: Role) -> Invitation:
        if project_id is None:
            owner = self._tenancy.org(org_id, inviter).role is Role.OWNER
        else:
            owner = self._tenancy.project(org_id, project_id, inviter).role is Role.OWNER
        if not owner:
            raise PermissionDeniedError("Only an OWNER can invite.")
        token = secrets.token_urlsafe(24)
        now = self.clock()
        invitation = Invitation(
            id="inv_" + uuid.uuid4().hex[:16],
            email=normal_email(email),
            org_id=org_id,
            project_id=project_id,
            role=role,
            invited_by=inviter.id,
            created_at=now,
            expires_at=now + timedelta(days=7),
        )
        self._invitations[_hashed(token)] = (invitation, inviter)
        return replace(invitation, token=token)

    def invitations(self, user: PlatformUser, org_id: str, project_id: str | None) -> list[Invitation]:
        self._tenancy.org(org_id, user)  # NotFoundError for a non-member
        return [
            invitation
            for invitation, _inviter in self._invitations.values()
            if invitation.org_id == org_id and invitation.project_id == project_id
        ]

    def revoke_invitation(self, user: PlatformUser, org_id: str, invitation_id: str) -> None:
        for key, (invitation, _inviter) in list(self._invitations.items()):
            if invitation.id == invitation_id and invitation.org_id == org_id:
                del self._invitations[key]
                return
        raise NotFoundError("Invitation not found.")

    def invitation(self, token: str) -> Invitation | None:
        found = self._invitations.get(_hashed(token))
        if found is None or found[0].expires_at <= self.clock():
            return None
        return found[0]

    def accept(self, token: str, password: str, client: str) -> ConsoleSession:
        found = self._invitations.get(_hashed(token))
        if found is None or found[0].expires_at <= self.clock():
            raise NotFoundError("This invitation is unknown, spent or expired.")
        invitation, inviter = found
        if len(password) < MIN_PASSWORD:
            raise ValidationError(f"A password needs at least {MIN_PASSWORD} characters.")
        user = self._member(invitation, inviter) or self._member(invitation, inviter, make_user=True)
        assert user is not None, "the tenancy service made no member of the accepted invitation"
        del self._invitations[_hashed(token)]
        self.set_password(user, password)
        return self._begin(user)

    def _member(self, invitation: Invitation, inviter: PlatformUser, *, make_user: bool = False) -> PlatformUser | None:
        """Make the invited email a member, as the platform's account service does on acceptance. The tenancy
        service makes a member at once of a known user only (an unknown email becomes a pending invitation of its
        own): `make_user` first makes the user, as signing up does."""
        if make_user:
            self._tenancy.bootstrap(invitation.email, "Personal")
        if invitation.project_id is None:
            self._tenancy.add_org_member(invitation.org_id, inviter, invitation.email, invitation.role.value)
            members = self._tenancy.org_members(invitation.org_id, inviter)
        else:
            self._tenancy.add_project_member(
                invitation.org_id, invitation.project_id, inviter, invitation.email, invitation.role.value
            )
            members = self._tenancy.project_members(invitation.org_id, invitation.project_id, inviter)
        return next((m.user for m in members if normal_email(m.user.email) == invitation.email), None)

    def _begin(self, user: PlatformUser) -> ConsoleSession:
        session_id = secrets.token_urlsafe(32)
        stored = _Stored(user, secrets.token_urlsafe(24), self.clock() + self._length)
        self._sessions[_hashed(session_id)] = stored
        return ConsoleSession(session_id, user, stored.csrf_token, stored.expires_at)
