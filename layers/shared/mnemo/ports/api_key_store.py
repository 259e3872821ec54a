"""The record store port for per-user API keys (their hashes, never their values)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from mnemo.domain.api_keys import ApiKey


class ApiKeyStore(Protocol):
    def add(self, key: ApiKey) -> None: ...

    def get(self, key_id: str) -> ApiKey | None: ...

    def list_for_user(self, user_id: str) -> list[ApiKey]:
        """The user's keys that are not revoked, newest first."""
        ...

    def find_active_by_prefix(self, key_prefix: str) -> Sequence[ApiKey]:
        """Keys that are not revoked and have this shown prefix (candidates for a presented value)."""
        ...

    def revoke(self, key_id: str, at: datetime) -> bool:
        """Mark a key revoked; False when it does not exist or is already revoked."""
        ...

    def touch(self, key_id: str, at: datetime) -> None:
        """Record a use of the key."""
        ...

    def auth_epoch(self) -> int | None:
        """A number that changes whenever a stored key or user may have changed meaning (revoked, moved, removed,
        its user changed or removed), in any process; None where the store has none (nothing may then be
        cached)."""
        ...

    def remove_for_user(self, user_id: str) -> int:
        """Delete every key of a user (when the user is removed); returns how many."""
        ...
