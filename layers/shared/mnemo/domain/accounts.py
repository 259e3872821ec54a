"""Dashboard users of a self-hosted deployment: who they are and what role they have."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

MIN_PASSWORD_LENGTH = 8
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class Role(StrEnum):
    ADMIN = "admin"
    MEMBER = "member"


@dataclass(frozen=True, slots=True)
class User:
    id: str
    name: str
    email: str
    role: Role
    password_hash: str
    created_at: datetime
    last_login_at: datetime | None = None

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def changed(self, **fields: Any) -> User:
        return replace(self, **fields)


def normalize_email(email: str) -> str:
    """Emails compare case-insensitively: stored and looked up stripped and lower-cased."""
    return email.strip().lower()


def is_email(value: str) -> bool:
    return bool(_EMAIL.match(value)) and len(value) <= 255
