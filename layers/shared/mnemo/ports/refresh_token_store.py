"""The record store port for refresh tokens: a hash of each token's id, its family, expiry and use."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from mnemo.domain.sessions import RefreshTokenRecord


class RefreshTokenStore(Protocol):
    def add(self, record: RefreshTokenRecord) -> None: ...

    def get(self, token_hash: str) -> RefreshTokenRecord | None: ...

    def consume(self, token_hash: str, at: datetime) -> RefreshTokenRecord | None:
        """Atomically mark the token used, if it is unused, not revoked and not expired at `at`; return it as it
        was stored. None when it cannot be used: two concurrent calls never both succeed."""
        ...

    def revoke_family(self, family_id: str, at: datetime) -> int:
        """Revoke every token of a sign-in session that is still usable; returns how many."""
        ...

    def revoke_for_user(self, user_id: str, at: datetime, keep_family: str | None = None) -> int:
        """Revoke every usable token of a user, except those of `keep_family`; returns how many."""
        ...

    def prune(self, expired_before: datetime) -> int:
        """Delete tokens that expired before the given time; returns how many."""
        ...
