"""Sign-in sessions as tokens: short-lived access tokens, and single-use refresh tokens that rotate.

Every sign-in starts a token family. Each refresh consumes its token and issues the next one of the same
family; presenting a consumed token again (a replay: someone holds a copy) revokes the whole family, so
neither the thief nor the victim can go on refreshing, and the victim signs in again.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from mnemo.domain.accounts import User
from mnemo.domain.memory import now
from mnemo.domain.sessions import RefreshTokenRecord, TokenPair, TokenType, jti_digest
from mnemo.errors import AuthenticationError, ServerMisconfiguredError
from mnemo.ports.refresh_token_store import RefreshTokenStore
from mnemo.ports.token_codec import TokenCodec
from mnemo.ports.user_store import UserStore

log = logging.getLogger("mnemo.tokens")

NOT_CONFIGURED = "JWT_SECRET is not configured."
WRONG_TYPE = "Invalid token type."
NO_USER = "User not found."
SPENT = "Refresh token is no longer valid."


@dataclass(frozen=True, slots=True)
class AccessGrant:
    """A verified access token: its user and the session family it belongs to."""

    user: User
    family_id: str


class TokenService:
    def __init__(
        self,
        codec: TokenCodec | None,
        refresh_tokens: RefreshTokenStore,
        users: UserStore,
        *,
        access_ttl: timedelta = timedelta(minutes=30),
        refresh_ttl: timedelta = timedelta(days=30),
        clock: Callable[[], datetime] = now,
    ) -> None:
        self._codec = codec
        self.refresh_tokens = refresh_tokens
        self._users = users
        self.access_ttl = access_ttl
        self.refresh_ttl = refresh_ttl
        self._clock = clock

    @property
    def configured(self) -> bool:
        return self._codec is not None

    def require_configured(self) -> TokenCodec:
        if self._codec is None:
            raise ServerMisconfiguredError(NOT_CONFIGURED)
        return self._codec

    def issue(self, user: User, family_id: str | None = None) -> TokenPair:
        """A new access and refresh token; a new family unless continuing one (on refresh)."""
        codec = self.require_configured()
        family = family_id or str(uuid.uuid4())
        issued = self._clock()
        refresh_jti = str(uuid.uuid4())
        self.refresh_tokens.add(
            RefreshTokenRecord(
                token_hash=jti_digest(refresh_jti),
                user_id=user.id,
                family_id=family,
                created_at=issued,
                expires_at=issued + self.refresh_ttl,
            )
        )
        access = codec.encode(
            _claims(user.id, TokenType.ACCESS, issued, self.access_ttl, str(uuid.uuid4()), family)
            | {"role": user.role.value}
        )
        refresh = codec.encode(_claims(user.id, TokenType.REFRESH, issued, self.refresh_ttl, refresh_jti, family))
        return TokenPair(access, refresh, int(self.access_ttl.total_seconds()))

    def verify_access(self, token: str) -> AccessGrant:
        claims = self.require_configured().decode(token)
        if claims.get("type") != TokenType.ACCESS.value:
            raise AuthenticationError(WRONG_TYPE)
        user = self._users.get(str(claims["sub"]))
        if user is None:
            raise AuthenticationError(NO_USER)
        return AccessGrant(user, str(claims.get("fam", "")))

    def refresh(self, token: str) -> TokenPair:
        claims = self.require_configured().decode(token)
        if claims.get("type") != TokenType.REFRESH.value:
            raise AuthenticationError(WRONG_TYPE)
        token_hash = jti_digest(str(claims["jti"]))
        at = self._clock()
        record = self.refresh_tokens.consume(token_hash, at)
        if record is None:
            known = self.refresh_tokens.get(token_hash)
            if known is not None and known.used_at is not None:
                revoked = self.refresh_tokens.revoke_family(known.family_id, at)
                log.warning(
                    "a used refresh token was presented again: session family of user %s revoked (%d tokens)",
                    known.user_id,
                    revoked,
                )
            raise AuthenticationError(SPENT)
        user = self._users.get(record.user_id)
        if user is None or user.id != str(claims["sub"]):
            raise AuthenticationError(NO_USER)
        return self.issue(user, record.family_id)

    def end_other_sessions(self, user: User, keep_family: str | None) -> int:
        """Revoke the user's refresh tokens, except those of the caller's own session (after a password
        change). Access tokens already issued lapse within their short lifetime."""
        return self.refresh_tokens.revoke_for_user(user.id, self._clock(), keep_family=keep_family)

    def end_all_sessions(self, user_id: str) -> int:
        return self.refresh_tokens.revoke_for_user(user_id, self._clock())

    def prune(self) -> int:
        return self.refresh_tokens.prune(self._clock())


def _claims(subject: str, kind: TokenType, issued: datetime, ttl: timedelta, jti: str, family: str) -> dict[str, Any]:
    return {
        "sub": subject,
        "type": kind.value,
        "iat": int(issued.timestamp()),
        "exp": int((issued + ttl).timestamp()),
        "jti": jti,
        "fam": family,
    }
