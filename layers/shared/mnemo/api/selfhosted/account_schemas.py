"""Request models and response shapes of the self-hosted account routes: /auth, /users, /api-keys
(compat-reference §1.4)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from mnemo.domain.accounts import Role, User, is_email, normalize_email
from mnemo.domain.api_keys import ApiKey
from mnemo.domain.sessions import TokenPair
from mnemo.domain.timefmt import iso

MAX_PASSWORD = 1024  # argon2 takes any length; this bounds the work one request can ask for


def _email(value: str) -> str:
    if not is_email(normalize_email(value)):
        raise ValueError("value is not a valid email address")
    return value


class Credentials(BaseModel):
    email: str = Field(max_length=255, examples=["admin@example.com"])
    password: str = Field(max_length=MAX_PASSWORD)


class Registration(BaseModel):
    name: str = Field(min_length=1, max_length=255, examples=["Ada"])
    email: str = Field(max_length=255, examples=["admin@example.com"])
    password: str = Field(max_length=MAX_PASSWORD, description="At least 8 characters.")

    _check_email = field_validator("email")(_email)


class NewUser(Registration):
    role: Role = Field(default=Role.MEMBER, description="member (the default) or admin.")


class RefreshRequest(BaseModel):
    refresh_token: str


class ProfileUpdate(BaseModel):
    name: str | None = Field(default=None, max_length=255)
    email: str | None = Field(default=None, max_length=255)

    @field_validator("email")
    @classmethod
    def _check_email(cls, value: str | None) -> str | None:
        return None if value is None else _email(value)


class PasswordChange(BaseModel):
    current_password: str = Field(max_length=MAX_PASSWORD)
    new_password: str = Field(max_length=MAX_PASSWORD, description="At least 8 characters.")


class NewApiKey(BaseModel):
    label: str = Field(default="", max_length=255, examples=["my agent"])


def token_view(pair: TokenPair) -> dict[str, Any]:
    return {
        "access_token": pair.access_token,
        "refresh_token": pair.refresh_token,
        "token_type": "bearer",
        "expires_in": pair.expires_in,
    }


def user_view(user: User) -> dict[str, Any]:
    return {
        "id": user.id,
        "name": user.name,
        "email": user.email,
        "role": user.role.value,
        "created_at": iso(user.created_at),
        "last_login_at": iso(user.last_login_at) if user.last_login_at else None,
    }


def api_key_view(key: ApiKey) -> dict[str, Any]:
    return {
        "id": key.id,
        "label": key.label,
        "key_prefix": key.key_prefix,
        "created_at": iso(key.created_at),
        "last_used_at": iso(key.last_used_at) if key.last_used_at else None,
    }
