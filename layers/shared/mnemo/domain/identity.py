"""Who is calling: the authentication mode of a request and the user behind it, if any."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mnemo.domain.accounts import User


class AuthMode(StrEnum):
    BEARER = "bearer"
    API_KEY = "api_key"
    ADMIN_KEY = "admin_api_key"
    DISABLED = "disabled"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Caller:
    mode: AuthMode
    user: User | None = None
    key_prefix: str | None = None  # the shown prefix of a per-user key
    family_id: str | None = None  # the sign-in session of a Bearer token

    @property
    def is_admin(self) -> bool:
        """The admin key and disabled auth act as admin; otherwise the user's role decides."""
        if self.mode in (AuthMode.ADMIN_KEY, AuthMode.DISABLED):
            return True
        return self.user is not None and self.user.is_admin
