"""Passwords hashed with argon2id (argon2-cffi). Production defaults follow RFC 9106's second recommended
profile (t=3, 64 MiB, p=4); tests pass cheaper parameters through the settings."""

from __future__ import annotations

from argon2 import PasswordHasher as _Argon2
from argon2 import Type
from argon2.exceptions import InvalidHashError, VerificationError


class Argon2PasswordHasher:
    def __init__(self, time_cost: int = 3, memory_kib: int = 65536, parallelism: int = 4) -> None:
        self._argon2 = _Argon2(time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism, type=Type.ID)

    def hash(self, password: str) -> str:
        return self._argon2.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        try:
            return self._argon2.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        try:
            return self._argon2.check_needs_rehash(password_hash)
        except InvalidHashError:
            return True
