"""The password hashing port: a slow, salted key-derivation function."""

from __future__ import annotations

from typing import Protocol


class PasswordHasher(Protocol):
    def hash(self, password: str) -> str:
        """A self-describing hash (algorithm, parameters, salt and digest in one string)."""
        ...

    def verify(self, password_hash: str, password: str) -> bool:
        """Whether `password` matches; False (never an exception) for a mismatch or a malformed hash."""
        ...

    def needs_rehash(self, password_hash: str) -> bool:
        """Whether the hash was made with other parameters than the current ones."""
        ...
