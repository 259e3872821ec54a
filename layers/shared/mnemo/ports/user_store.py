"""The record store port for dashboard users."""

from __future__ import annotations

from typing import Protocol

from mnemo.domain.accounts import User


class UserStore(Protocol):
    def add(self, user: User) -> None:
        """Store a new user. Raises ConflictError when the email is taken."""
        ...

    def add_first(self, user: User) -> bool:
        """Store `user` only while no user exists, atomically; False (and nothing stored) otherwise."""
        ...

    def get(self, user_id: str) -> User | None: ...

    def get_by_email(self, email: str) -> User | None:
        """`email` is compared as given: callers pass it normalised."""
        ...

    def list(self) -> list[User]:
        """Every user, oldest first."""
        ...

    def count(self) -> int: ...

    def update(self, user: User) -> bool:
        """Overwrite a stored user; False when it does not exist. Raises ConflictError when the email is taken."""
        ...

    def remove(self, user_id: str) -> bool: ...
