"""ConsoleAccounts: the console's sign-in (mnemo.ports.console_auth.ConsoleAuth) over the platform's directory
(users, roles) and the console's own records (passwords, sessions, invitations).

An invitation's token is shown to the inviter (no mail is sent), so accepting one never takes over an account that
exists already: a new email gets its account and password; an email with a password must give it; an email known
to the platform without a console password (made by `mnemo platform bootstrap` without one, or by a project-key
client) is refused, and an operator sets its password (`mnemo platform set-password`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from mnemo.domain.memory import new_id, now
from mnemo.domain.tenancy import PlatformUser, Role, is_email, normal_email
from mnemo.errors import AuthenticationError, NotFoundError, PermissionDeniedError, ValidationError
from mnemo.ports.console_account_store import ConsoleAccountStore
from mnemo.ports.console_auth import ConsoleSession, Invitation
from mnemo.ports.password_hasher import PasswordHasher
from mnemo.ports.tenancy_store import DirectoryStore
from mnemo.services.platform.console_accounts import scopes
from mnemo.services.platform.console_accounts.invitations import Invitations, shown
from mnemo.services.platform.console_accounts.passwords import Passwords, checked_password
from mnemo.services.platform.console_accounts.policy import ConsolePolicy
from mnemo.services.platform.console_accounts.sessions import Sessions, csrf_token
from mnemo.services.platform.console_accounts.throttle import SignInThrottle, throttle_keys

BAD_SIGN_IN = "Invalid email or password."
SESSION_ENDED = "Your session has ended. Sign in again."
WRONG_CURRENT = "Current password is incorrect."
INVITATION_GONE = "This invitation is unknown, already used, or expired."
NO_CONSOLE_PASSWORD = (
    "This email has a platform account without a console password: an operator sets one "
    "(mnemo platform set-password --email ... --password-stdin), then accept signed in with it."
)


class ConsoleAccounts:
    def __init__(
        self,
        directory: DirectoryStore,
        store: ConsoleAccountStore,
        hasher: PasswordHasher,
        policy: ConsolePolicy | None = None,
        clock: Callable[[], datetime] = now,
    ) -> None:
        policy = policy or ConsolePolicy()
        self._directory = directory
        self._clock = clock
        self._passwords = Passwords(store, hasher)
        self._sessions = Sessions(store, policy, clock)
        self.invites = Invitations(store, policy, clock)  # also what TenancyService invites unknown emails with
        self._throttle = SignInThrottle(policy, clock)

    # ---- sign-in ----

    def sign_in(self, email: str, password: str, client: str) -> ConsoleSession:
        address = normal_email(email) if isinstance(email, str) else ""
        keys = throttle_keys(address, client)
        self._throttle.check(keys)
        user = self._directory.user_by_email(address) if is_email(address) else None
        if not self._passwords.verify(None if user is None else user.id, password if isinstance(password, str) else ""):
            self._throttle.failed(keys)
            raise AuthenticationError(BAD_SIGN_IN)
        assert user is not None
        self._throttle.succeeded(keys[0])
        return self._begin(user)

    def session(self, session_id: str) -> ConsoleSession | None:
        record = self._sessions.live(session_id)
        if record is None:
            return None
        user = self._directory.user_by_id(record.user_id)
        if user is None:
            self._sessions.end(session_id)
            return None
        return ConsoleSession(session_id, user, csrf_token(session_id), self._sessions.expiry(record))

    def sign_out(self, session_id: str) -> None:
        self._sessions.end(session_id)

    def change_password(self, session_id: str, current: str, new: str) -> None:
        record = self._sessions.live(session_id)
        user = None if record is None else self._directory.user_by_id(record.user_id)
        if record is None or user is None:
            raise AuthenticationError(SESSION_ENDED)
        checked_password(new)
        keys = throttle_keys(user.email, "")[:1]
        self._throttle.check(keys)
        if not self._passwords.verify(user.id, current if isinstance(current, str) else ""):
            self._throttle.failed(keys)
            raise AuthenticationError(WRONG_CURRENT)
        self._passwords.set(user.id, new)
        self._sessions.end_others(user.id, record)

    def set_password(self, email: str, password: str) -> PlatformUser:
        """An operator's act (the CLI): set the password of the platform user with this email and end their
        sessions. NotFoundError for an unknown email, ValidationError for a weak password."""
        checked_password(password)
        user = self._directory.user_by_email(normal_email(email))
        if user is None:
            raise NotFoundError(f"No platform user has the email {normal_email(email)}.")
        self._passwords.set(user.id, password)
        self._sessions.end_others(user.id, None)
        return user

    def has_password(self, user_id: str) -> bool:
        return self._passwords.has_password(user_id)

    # ---- invitations ----

    def invite(self, inviter: PlatformUser, org_id: str, project_id: str | None, email: str, role: Role) -> Invitation:
        if not isinstance(email, str) or not is_email(email):
            raise ValidationError("A valid email is required.")
        if not isinstance(role, Role):
            raise ValidationError("role must be READER or OWNER.")
        scopes.require_owner(self._directory, inviter, org_id, project_id)
        return self.invites.create(org_id, project_id, normal_email(email), role, inviter.id)

    def invitations(self, user: PlatformUser, org_id: str, project_id: str | None) -> list[Invitation]:
        """The pending invitations of the place, for an OWNER of it."""
        scopes.require_owner(self._directory, user, org_id, project_id)
        return self.invites.pending(org_id, project_id)

    def revoke_invitation(self, user: PlatformUser, org_id: str, invitation_id: str) -> None:
        record = self.invites.find(org_id, invitation_id)
        if record is None or scopes.role_in(self._directory, user, org_id, record.project_id) is None:
            raise NotFoundError("Invitation not found.")
        scopes.require_owner(self._directory, user, org_id, record.project_id)
        if not self.invites.revoke(org_id, invitation_id):
            raise NotFoundError("Invitation not found.")

    def invitation(self, token: str) -> Invitation | None:
        record = self.invites.by_token(token)
        return None if record is None else shown(record)

    def accept(self, token: str, password: str, client: str) -> ConsoleSession:
        record = self.invites.by_token(token)
        if record is None:
            raise NotFoundError(INVITATION_GONE)
        user = self._directory.user_by_email(record.email)
        if user is None:
            checked_password(password)  # before the token is spent: a weak password can be tried again
        else:
            self._prove(user, password, client)
        if not self.invites.take(record):
            raise NotFoundError(INVITATION_GONE)
        if user is None:
            user = self._directory.add_user(PlatformUser(new_id(), record.email, self._clock()))
            if not self._passwords.has_password(user.id):
                self._passwords.set(user.id, password)
        scopes.add_member(self._directory, user, record.org_id, record.project_id, record.role)
        return self._begin(user)

    # ---- internals ----

    def _prove(self, user: PlatformUser, password: str, client: str) -> None:
        """An invitation to an account that exists is accepted with its password (throttled as a sign-in)."""
        if not self._passwords.has_password(user.id):
            raise PermissionDeniedError(NO_CONSOLE_PASSWORD)
        keys = throttle_keys(user.email, client)
        self._throttle.check(keys)
        if not self._passwords.verify(user.id, password if isinstance(password, str) else ""):
            self._throttle.failed(keys)
            raise AuthenticationError("This email has an account: accept with its password.")

    def _begin(self, user: PlatformUser) -> ConsoleSession:
        session_id, record = self._sessions.begin(user.id)
        return ConsoleSession(session_id, user, csrf_token(session_id), self._sessions.expiry(record))
