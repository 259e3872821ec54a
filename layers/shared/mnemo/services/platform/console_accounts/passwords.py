"""Platform users' console passwords: the minimum rule, argon2id hashes (the PasswordHasher port) kept beside the
user record, and a check that costs the same whether or not the user (or their password) exists."""

from __future__ import annotations

from mnemo.domain.console_accounts import MAX_PASSWORD_LENGTH, password_problem
from mnemo.errors import ValidationError
from mnemo.ports.console_account_store import ConsoleAccountStore
from mnemo.ports.password_hasher import PasswordHasher


def checked_password(password: object) -> str:
    """The password, when it meets the rule; else ValidationError saying the rule."""
    problem = password_problem(password)
    if problem is not None:
        raise ValidationError(problem)
    assert isinstance(password, str)
    return password


class Passwords:
    def __init__(self, store: ConsoleAccountStore, hasher: PasswordHasher) -> None:
        self._store = store
        self._hasher = hasher
        self._dummy_hash: str | None = None

    def has_password(self, user_id: str) -> bool:
        return self._store.password_hash(user_id) is not None

    def set(self, user_id: str, password: object) -> None:
        """Set the user's password (ValidationError, naming the rule, when it is too weak)."""
        self._store.set_password_hash(user_id, self._hasher.hash(checked_password(password)))

    def verify(self, user_id: str | None, password: str) -> bool:
        """Whether this is the user's password. An unknown user (None), one with no password, and an overlong
        password each cost one hash check too, so the time taken tells nothing about which it was."""
        dummy = self._dummy()
        stored = None if user_id is None else self._store.password_hash(user_id)
        if len(password) > MAX_PASSWORD_LENGTH:
            self._hasher.verify(dummy, "")
            return False
        if stored is None or user_id is None:
            self._hasher.verify(dummy, password)
            return False
        if not self._hasher.verify(stored, password):
            return False
        if self._hasher.needs_rehash(stored):
            self._store.set_password_hash(user_id, self._hasher.hash(password))
        return True

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self._hasher.hash("not a password of anyone")
        return self._dummy_hash
