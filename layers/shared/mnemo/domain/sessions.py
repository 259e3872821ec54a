"""Sign-in sessions: access and refresh tokens, and the stored trace of each refresh token."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class TokenType(StrEnum):
    ACCESS = "access"
    REFRESH = "refresh"


@dataclass(frozen=True, slots=True)
class TokenPair:
    access_token: str
    refresh_token: str
    expires_in: int  # seconds the access token is valid


@dataclass(frozen=True, slots=True)
class RefreshTokenRecord:
    """A refresh token as stored: a hash of its id (jti), never the token. Every refresh token descends from
    one sign-in, its `family`; a replayed token revokes the whole family."""

    token_hash: str
    user_id: str
    family_id: str
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None
    revoked_at: datetime | None = None


def jti_digest(jti: str) -> str:
    return hashlib.sha256(jti.encode("utf-8")).hexdigest()
