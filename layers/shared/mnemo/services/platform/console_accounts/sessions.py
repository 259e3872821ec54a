"""Console sessions: a random id (the cookie's value) stored only as its SHA-256 digest, an idle expiry that each
use moves on and an absolute one that nothing moves, and the session's CSRF token.

The CSRF token is an HMAC of the session id, so it needs no storage of its own, is the same for every page of a
session, and cannot be worked out from what is stored (the digest) nor without the id (an HttpOnly cookie).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from datetime import datetime

from mnemo.domain.console_accounts import MAX_SECRET_LENGTH, SessionRecord, new_secret, secret_digest
from mnemo.ports.console_account_store import ConsoleAccountStore
from mnemo.services.platform.console_accounts.policy import ConsolePolicy

_CSRF_LABEL = b"mnemo console csrf"


def csrf_token(session_id: str) -> str:
    return hmac.new(session_id.encode("utf-8"), _CSRF_LABEL, hashlib.sha256).hexdigest()


class Sessions:
    def __init__(self, store: ConsoleAccountStore, policy: ConsolePolicy, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._policy = policy
        self._clock = clock

    def begin(self, user_id: str) -> tuple[str, SessionRecord]:
        """A new session of the user: its id (shown once) and its record."""
        session_id = new_secret()
        at = self._clock()
        record = SessionRecord(secret_digest(session_id), user_id, at, at, at + self._policy.session_lifetime)
        self._store.add_session(record)
        return session_id, record

    def live(self, session_id: str) -> SessionRecord | None:
        """The session of this id, its idle expiry moved on; None when unknown, ended or expired (an expired one
        is deleted)."""
        if not session_id or len(session_id) > MAX_SECRET_LENGTH:
            return None
        record = self._store.get_session(secret_digest(session_id))
        if record is None:
            return None
        at = self._clock()
        if at >= self.expiry(record):
            self._store.delete_session(record.session_hash)
            return None
        self._store.touch_session(record.session_hash, at)
        return SessionRecord(record.session_hash, record.user_id, record.created_at, at, record.expires_at)

    def expiry(self, record: SessionRecord) -> datetime:
        """When the session ends unless used before: the idle expiry, or the absolute one when sooner."""
        return min(record.last_seen_at + self._policy.session_idle, record.expires_at)

    def end(self, session_id: str) -> None:
        if session_id and len(session_id) <= MAX_SECRET_LENGTH:
            self._store.delete_session(secret_digest(session_id))

    def end_others(self, user_id: str, keep: SessionRecord | None) -> int:
        """End every session of the user but `keep`; how many."""
        return self._store.delete_sessions_of(user_id, None if keep is None else keep.session_hash)
