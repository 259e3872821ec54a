"""Per-user API keys: created (the value shown once), listed, revoked, and checked on every request."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from mnemo.domain.accounts import User
from mnemo.domain.api_keys import ApiKey, is_key_format, key_digest, new_key_value, shown_prefix
from mnemo.domain.memory import new_id, now
from mnemo.errors import AuthenticationError, NotFoundError, ValidationError
from mnemo.ports.api_key_store import ApiKeyStore
from mnemo.ports.user_store import UserStore

log = logging.getLogger("mnemo.api_keys")

INVALID = "Invalid API key."
# last_used_at is written at most this often per key, so that a busy key does not cost a write per request.
TOUCH_INTERVAL = timedelta(seconds=60)
MAX_VERIFIED = 10_000  # keys the verified-key cache holds at most (it starts again empty when full)


class ApiKeyService:
    def __init__(self, keys: ApiKeyStore, users: UserStore, clock: Callable[[], datetime] = now) -> None:
        self.keys = keys
        self._users = users
        self._clock = clock
        # The verified-key cache: by the key's SHA-256 (never the value), the key and its user as the store gave
        # them, with the store's auth epoch of that moment. An answer is used only while the epoch has not moved:
        # a key revoked or removed, or its user changed or removed, in any process, misses at once.
        self._verified: dict[str, tuple[int, ApiKey, User]] = {}

    def create(self, user: User, label: str) -> tuple[ApiKey, str]:
        """The stored key and its full value, which is never available again."""
        value = new_key_value()
        key = ApiKey(
            id=new_id(),
            user_id=user.id,
            label=label.strip(),
            key_prefix=shown_prefix(value),
            key_hash=key_digest(value),
            created_at=self._clock(),
        )
        self.keys.add(key)
        log.info("API key %s… created for user %s", key.key_prefix, user.id)
        return key, value

    def list(self, user: User) -> list[ApiKey]:
        return self.keys.list_for_user(user.id)

    def revoke(self, user: User, key_id: str) -> ApiKey:
        key = self.keys.get(key_id)
        if key is None or key.user_id != user.id:
            raise NotFoundError("API key not found.")
        if key.revoked or not self.keys.revoke(key_id, self._clock()):
            raise ValidationError("API key is already revoked.")
        log.info("API key %s… revoked by user %s", key.key_prefix, user.id)
        return key

    def authenticate(self, value: str) -> tuple[ApiKey, User]:
        """The key and its owner for a presented value. Raises AuthenticationError when the value is not a
        live key of an existing user."""
        if not is_key_format(value):
            raise AuthenticationError(INVALID)
        digest = key_digest(value)
        epoch = self.keys.auth_epoch()  # read before the key: a change after it moves it past what is cached
        verified = self._verified.get(digest)
        if verified is not None and epoch is not None and verified[0] == epoch:
            match, user = verified[1], verified[2]
        else:
            match, user = self._lookup(value, digest)
        at = self._clock()
        if match.last_used_at is None or at - match.last_used_at >= TOUCH_INTERVAL:
            self.keys.touch(match.id, at)
            match = match.changed(last_used_at=at)
        if epoch is not None:
            if len(self._verified) >= MAX_VERIFIED:
                self._verified = {}
            self._verified[digest] = (epoch, match, user)
        return match, user

    def verified(self, value: str) -> tuple[ApiKey, User] | None:
        """The key and its owner when the value was verified before and nothing changed since (one read of the
        store's epoch, no write: a use due to be recorded answers None), else None: then `authenticate`."""
        digest = key_digest(value)
        verified = self._verified.get(digest)
        if verified is None or verified[0] != self.keys.auth_epoch():
            return None
        _, match, user = verified
        if match.last_used_at is None or self._clock() - match.last_used_at >= TOUCH_INTERVAL:
            return None
        return match, user

    def _lookup(self, value: str, digest: str) -> tuple[ApiKey, User]:
        match = None
        for candidate in self.keys.find_active_by_prefix(shown_prefix(value)):
            if hmac.compare_digest(candidate.key_hash, digest):
                match = candidate
        if match is None:
            raise AuthenticationError(INVALID)
        user = self._users.get(match.user_id)
        if user is None:
            raise AuthenticationError(INVALID)
        return match, user

    def remove_for_user(self, user_id: str) -> int:
        return self.keys.remove_for_user(user_id)
