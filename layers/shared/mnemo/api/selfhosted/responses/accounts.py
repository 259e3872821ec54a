"""Answers of the account routes: /auth, /users, /api-keys."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from mnemo.api.responses import ZuluTimestamp
from mnemo.domain.accounts import User
from mnemo.domain.api_keys import ApiKey
from mnemo.domain.sessions import TokenPair


class SetupStatus(BaseModel):
    """Whether the first admin still has to register."""

    needs_setup: bool = Field(alias="needsSetup", description="True while no user exists.")


class TokenOut(BaseModel):
    """A sign-in: an access token for the Authorization header, and a refresh token to get the next pair."""

    access_token: str = Field(description="A JWT to send as `Authorization: Bearer <token>`.")
    refresh_token: str = Field(description="A JWT for POST /auth/refresh; single use.")
    token_type: Literal["bearer"] = Field(description="Always bearer.")
    expires_in: int = Field(description="Seconds the access token is valid.", examples=[1800])

    @classmethod
    def of(cls, pair: TokenPair) -> TokenOut:
        return cls(
            access_token=pair.access_token,
            refresh_token=pair.refresh_token,
            token_type="bearer",
            expires_in=pair.expires_in,
        )


class UserAccount(BaseModel):
    """A user account (never its password)."""

    id: str = Field(description="The user's id (a UUID).")
    name: str = Field(description="The user's name.", examples=["Ada"])
    email: str = Field(description="The user's email, used to sign in.", examples=["admin@example.com"])
    role: Literal["admin", "member"] = Field(description="admin or member.")
    created_at: ZuluTimestamp = Field(description="When the account was created (UTC).")
    last_login_at: ZuluTimestamp | None = Field(description="The last sign-in (UTC); null if never.")

    @classmethod
    def of(cls, user: User) -> UserAccount:
        return cls.model_validate(
            {
                "id": user.id,
                "name": user.name,
                "email": user.email,
                "role": user.role.value,
                "created_at": user.created_at,
                "last_login_at": user.last_login_at,
            }
        )


class UserApiKey(BaseModel):
    """An API key as listed: its shown prefix, never its value."""

    id: str = Field(description="The key's id (a UUID), for DELETE /api-keys/{key_id}.")
    label: str = Field(description="The key's label.", examples=["my agent"])
    key_prefix: str = Field(description="The key's first 12 characters.", examples=["m0sk_T9fJxUJ"])
    created_at: ZuluTimestamp = Field(description="When the key was created (UTC).")
    last_used_at: ZuluTimestamp | None = Field(description="The key's last use (UTC); null if never.")

    @classmethod
    def of(cls, key: ApiKey) -> UserApiKey:
        return cls(
            id=key.id,
            label=key.label,
            key_prefix=key.key_prefix,
            created_at=key.created_at,
            last_used_at=key.last_used_at,
        )


class UserApiKeyCreated(BaseModel):
    """A new API key, with its full value: shown in this answer only."""

    id: str = Field(description="The key's id (a UUID).")
    key: str = Field(
        description="The full key, for the X-API-Key header. Not shown again.",
        examples=["m0sk_T9fJxUJlGoB6Qy2YyUn0GaLDZLPTcRQy3pTnIMt88ag"],
    )
    label: str = Field(description="The key's label.", examples=["my agent"])
    key_prefix: str = Field(description="The key's first 12 characters.", examples=["m0sk_T9fJxUJ"])
    created_at: ZuluTimestamp = Field(description="When the key was created (UTC).")

    @classmethod
    def of(cls, key: ApiKey, value: str) -> UserApiKeyCreated:
        return cls(id=key.id, key=value, label=key.label, key_prefix=key.key_prefix, created_at=key.created_at)
