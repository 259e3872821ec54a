"""Dashboard accounts: the first admin's registration, sign-in by password, profile and password changes,
and the admin's management of further users."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from datetime import datetime

from mnemo.domain.accounts import MIN_PASSWORD_LENGTH, Role, User, is_email, normalize_email
from mnemo.domain.memory import new_id, now
from mnemo.errors import (
    AuthenticationError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    ValidationError,
)
from mnemo.ports.password_hasher import PasswordHasher
from mnemo.ports.user_store import UserStore

log = logging.getLogger("mnemo.accounts")

BAD_LOGIN = "Invalid email or password."
SHORT_PASSWORD = f"Password must be at least {MIN_PASSWORD_LENGTH} characters."
REGISTRATION_CLOSED = "Registration is closed. An admin account already exists."


class AccountService:
    def __init__(self, users: UserStore, hasher: PasswordHasher, clock: Callable[[], datetime] = now) -> None:
        self.users = users
        self._hasher = hasher
        self._clock = clock
        self._dummy_hash: str | None = None
        # What else goes with a removed user (its API keys, its sessions): wired by the composition root.
        self.on_user_removed: list[Callable[[str], object]] = []

    def needs_setup(self) -> bool:
        return self.users.count() == 0

    def register_first_admin(self, name: str, email: str, password: str) -> User:
        user = self._new_user(name, email, password, Role.ADMIN)
        if not self.users.add_first(user):
            raise PermissionDeniedError(REGISTRATION_CLOSED)
        log.info("first admin registered: user %s", user.id)
        return user

    def create_user(self, name: str, email: str, password: str, role: Role) -> User:
        user = self._new_user(name, email, password, role)
        self.users.add(user)
        log.info("user %s created with role %s", user.id, role.value)
        return user

    def authenticate(self, email: str, password: str) -> User:
        """The user with this email and password. An unknown email costs the same hash check as a wrong
        password, so the answer's timing does not tell whether the email exists."""
        dummy = self._dummy()  # made before the lookup, so the first login of any email pays for it alike
        user = self.users.get_by_email(normalize_email(email))
        if user is None:
            self._hasher.verify(dummy, password)
            raise AuthenticationError(BAD_LOGIN)
        if not self._hasher.verify(user.password_hash, password):
            raise AuthenticationError(BAD_LOGIN)
        changes: dict[str, object] = {"last_login_at": self._clock()}
        if self._hasher.needs_rehash(user.password_hash):
            changes["password_hash"] = self._hasher.hash(password)
        signed_in = user.changed(**changes)
        self.users.update(signed_in)
        return signed_in

    def get(self, user_id: str) -> User | None:
        return self.users.get(user_id)

    def oldest(self) -> User | None:
        everyone = self.users.list()
        return everyone[0] if everyone else None

    def list_users(self) -> list[User]:
        return self.users.list()

    def update_profile(self, user: User, name: str | None, email: str | None) -> User:
        changes: dict[str, object] = {}
        if name is not None and name.strip():
            changes["name"] = name.strip()
        if email is not None:
            changes["email"] = _checked_email(email)
        if not changes:
            return user
        updated = user.changed(**changes)
        if not self.users.update(updated):
            raise NotFoundError("User not found.")
        return updated

    def change_password(self, user: User, current_password: str, new_password: str) -> User:
        if not self._hasher.verify(user.password_hash, current_password):
            raise AuthenticationError("Current password is incorrect.")
        _check_password(new_password)
        updated = user.changed(password_hash=self._hasher.hash(new_password))
        if not self.users.update(updated):
            raise NotFoundError("User not found.")
        log.info("password changed for user %s", user.id)
        return updated

    def delete_user(self, user_id: str, acting_user: User | None) -> User:
        user = self.users.get(user_id)
        if user is None:
            raise NotFoundError("User not found.")
        if acting_user is not None and acting_user.id == user_id:
            raise ValidationError("You cannot delete your own account.")
        if user.is_admin and sum(1 for u in self.users.list() if u.is_admin) == 1:
            raise ConflictError("The last admin cannot be deleted.")
        self.users.remove(user_id)
        for cleanup in self.on_user_removed:
            cleanup(user_id)
        log.info("user %s deleted", user_id)
        return user

    def _dummy(self) -> str:
        """What an unknown email's password is checked against: a hash with the current parameters."""
        if self._dummy_hash is None:
            self._dummy_hash = self._hasher.hash(secrets.token_urlsafe(16))
        return self._dummy_hash

    def _new_user(self, name: str, email: str, password: str, role: Role) -> User:
        _check_password(password)
        clean_name = name.strip()
        if not clean_name:
            raise ValidationError("Name must not be empty.")
        return User(
            id=new_id(),
            name=clean_name,
            email=_checked_email(email),
            role=role,
            password_hash=self._hasher.hash(password),
            created_at=self._clock(),
        )


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationError(SHORT_PASSWORD)


def _checked_email(email: str) -> str:
    clean = normalize_email(email)
    if not is_email(clean):
        raise ValidationError("Email is not a valid email address.")
    return clean
