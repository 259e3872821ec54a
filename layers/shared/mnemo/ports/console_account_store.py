"""The store of the console's sign-in: platform users' password hashes, sessions and pending invitations.

A port of its own beside the tenancy store (same file or table, its own records), so the console's sign-in can
change without touching the directory every platform route reads. Sessions and invitations are found by the
digest of their secret (mnemo.domain.console_accounts.secret_digest), never by the secret itself.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from mnemo.domain.console_accounts import InvitationRecord, SessionRecord


class ConsoleAccountStore(Protocol):
    # ---- passwords ----
    def password_hash(self, user_id: str) -> str | None:
        """The user's password hash; None when the user has never set one."""
        ...

    def set_password_hash(self, user_id: str, password_hash: str) -> None: ...

    # ---- sessions ----
    def add_session(self, record: SessionRecord) -> None: ...

    def get_session(self, session_hash: str) -> SessionRecord | None: ...

    def touch_session(self, session_hash: str, at: datetime) -> None:
        """Move the session's `last_seen_at` (nothing when it is gone)."""
        ...

    def delete_session(self, session_hash: str) -> None:
        """End the session (nothing when it is gone)."""
        ...

    def delete_sessions_of(self, user_id: str, keep: str | None = None) -> int:
        """End every session of the user but the one whose hash is `keep`; how many ended."""
        ...

    # ---- invitations ----
    def add_invitation(self, record: InvitationRecord) -> None: ...

    def invitation_by_token(self, token_hash: str) -> InvitationRecord | None: ...

    def invitations_of(self, org_id: str) -> list[InvitationRecord]:
        """Every invitation to the organization and to its projects, oldest first (by `created_at`)."""
        ...

    def take_invitation(self, org_id: str, invitation_id: str) -> InvitationRecord | None:
        """Delete the invitation and return it; None when it is not (or no longer) there. Of two concurrent takes
        one gets the invitation: this is what makes a token one-time."""
        ...

    def delete_invitations(self, org_id: str, project_id: str | None = None) -> int:
        """Delete the invitations of a project (`project_id`) or of the whole organization and its projects
        (None); how many."""
        ...
