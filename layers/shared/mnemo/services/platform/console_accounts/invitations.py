"""Pending invitations to an organization or one of its projects: a random one-time token (the accept link's
secret, shown to the inviter since no mail is sent) stored only as its digest, an expiry, and a take that spends
the token once. Who may invite is checked by the caller (ConsoleAccounts, TenancyService)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from mnemo.domain.console_accounts import MAX_SECRET_LENGTH, InvitationRecord, new_secret, secret_digest
from mnemo.domain.memory import new_id
from mnemo.domain.tenancy import Role
from mnemo.ports.console_account_store import ConsoleAccountStore
from mnemo.ports.console_auth import Invitation
from mnemo.services.platform.console_accounts.policy import ConsolePolicy


def shown(record: InvitationRecord, token: str | None = None) -> Invitation:
    return Invitation(
        id=record.id,
        email=record.email,
        org_id=record.org_id,
        project_id=record.project_id,
        role=record.role,
        invited_by=record.invited_by,
        created_at=record.created_at,
        expires_at=record.expires_at,
        token=token,
    )


class Invitations:
    def __init__(self, store: ConsoleAccountStore, policy: ConsolePolicy, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._lifetime = policy.invitation_lifetime
        self._clock = clock

    def create(self, org_id: str, project_id: str | None, email: str, role: Role, invited_by: str) -> Invitation:
        """A new invitation of `email` (normalized by the caller); the one returned carries its token. An earlier
        pending invitation of the same email to the same place is replaced."""
        for earlier in self.pending(org_id, project_id):
            if earlier.email == email:
                self._store.take_invitation(org_id, earlier.id)
        token = new_secret()
        at = self._clock()
        record = InvitationRecord(
            new_id(), secret_digest(token), email, org_id, project_id, role, invited_by, at, at + self._lifetime
        )
        self._store.add_invitation(record)
        return shown(record, token)

    def pending(self, org_id: str, project_id: str | None) -> list[Invitation]:
        """The unexpired invitations to the organization itself (`project_id` None) or to one of its projects."""
        at = self._clock()
        return [
            shown(r) for r in self._store.invitations_of(org_id) if r.project_id == project_id and r.expires_at > at
        ]

    def by_token(self, token: str) -> InvitationRecord | None:
        """The unexpired invitation of this token, else None."""
        if not token or len(token) > MAX_SECRET_LENGTH:
            return None
        record = self._store.invitation_by_token(secret_digest(token))
        if record is None or record.expires_at <= self._clock():
            return None
        return record

    def find(self, org_id: str, invitation_id: str) -> InvitationRecord | None:
        return next((r for r in self._store.invitations_of(org_id) if r.id == invitation_id), None)

    def take(self, record: InvitationRecord) -> bool:
        """Spend the invitation; False when another accept (or a revoke) spent it first."""
        return self._store.take_invitation(record.org_id, record.id) is not None

    def revoke(self, org_id: str, invitation_id: str) -> bool:
        return self._store.take_invitation(org_id, invitation_id) is not None

    def drop(self, org_id: str, project_id: str | None = None) -> int:
        """Every invitation of a deleted project (or a deleted organization, `project_id` None)."""
        return self._store.delete_invitations(org_id, project_id)
