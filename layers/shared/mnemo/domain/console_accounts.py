"""The console's sign-in records as stored: a platform user's password hash, a session, an invitation.

A session id and an invitation token are secrets shown once (to the browser, to the inviter); what is stored is
only their SHA-256 digest (`secret_digest`), so a copy of the store opens no session and accepts no invitation.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from mnemo.domain.tenancy import Role

MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 1024  # checked before any hashing: argon2 over a huge input is work for nothing
PASSWORD_RULE = f"A password needs at least {MIN_PASSWORD_LENGTH} characters (and at most {MAX_PASSWORD_LENGTH})."
SECRET_BYTES = 32
MAX_SECRET_LENGTH = 128  # a session id or an invitation token longer than this is not one of ours


def new_secret() -> str:
    """A session id or an invitation token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(SECRET_BYTES)


def secret_digest(value: str) -> str:
    """What the store keeps of a session id or an invitation token."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def password_problem(password: object) -> str | None:
    """Why this password cannot be set (the rule, in words), or None when it can."""
    if not isinstance(password, str) or not MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH:
        return PASSWORD_RULE
    if not password.strip():
        return "A password cannot be only spaces."
    return None


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A signed-in browser as stored: `session_hash` is the digest of its id. It ends at `expires_at` (the absolute
    lifetime) or after an idle time past `last_seen_at`, whichever comes first."""

    session_hash: str
    user_id: str
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class InvitationRecord:
    """A pending invitation as stored: `token_hash` is the digest of its one-time token; `project_id` is None for
    an invitation to the organization itself."""

    id: str
    token_hash: str
    email: str
    org_id: str
    project_id: str | None
    role: Role
    invited_by: str
    created_at: datetime
    expires_at: datetime
