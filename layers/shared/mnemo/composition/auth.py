"""The self-hosted surface's accounts, tokens, API keys and authenticator, on either backend's account stores."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from mnemo.adapters.crypto.argon2_passwords import Argon2PasswordHasher
from mnemo.adapters.crypto.jwt_tokens import RECOMMENDED_SECRET_BYTES, JwtTokenCodec
from mnemo.ports.api_key_store import ApiKeyStore
from mnemo.ports.refresh_token_store import RefreshTokenStore
from mnemo.ports.user_store import UserStore
from mnemo.services.accounts import AccountService
from mnemo.services.api_keys import ApiKeyService
from mnemo.services.authentication import Authenticator
from mnemo.services.sessions import SessionService
from mnemo.services.tokens import TokenService
from mnemo.settings import Settings

MIN_ADMIN_KEY_LENGTH = 16

log = logging.getLogger("mnemo.composition")


@dataclass
class AccountStores:
    users: UserStore
    api_keys: ApiKeyStore
    refresh_tokens: RefreshTokenStore


@dataclass
class AuthServices:
    accounts: AccountService
    tokens: TokenService
    sessions: SessionService
    api_keys: ApiKeyService
    authenticator: Authenticator


def build_auth(settings: Settings, stores: AccountStores, *, warn: bool = True) -> AuthServices:
    users = stores.users
    accounts = AccountService(
        users,
        Argon2PasswordHasher(settings.argon2_time_cost, settings.argon2_memory_kib, settings.argon2_parallelism),
    )
    jwt_secret = settings.secret("jwt_secret")
    tokens = TokenService(
        JwtTokenCodec(jwt_secret) if jwt_secret else None,
        stores.refresh_tokens,
        users,
        access_ttl=timedelta(minutes=settings.access_token_minutes),
        refresh_ttl=timedelta(days=settings.refresh_token_days),
    )
    api_keys = ApiKeyService(stores.api_keys, users)
    accounts.on_user_removed += [api_keys.remove_for_user, tokens.end_all_sessions]
    admin_key = settings.secret("admin_api_key")
    if warn:
        warn_about_auth(settings, jwt_secret, admin_key)
    authenticator = Authenticator(tokens, api_keys, admin_api_key=admin_key, disabled=settings.auth_disabled)
    return AuthServices(accounts, tokens, SessionService(accounts, tokens), api_keys, authenticator)


def warn_about_auth(settings: Settings, jwt_secret: str | None, admin_key: str | None) -> None:
    if settings.auth_disabled:
        log.warning(
            "AUTHENTICATION IS DISABLED (AUTH_DISABLED=true): every route is open to anyone who can reach this "
            "server, with admin rights. Use this for local development only."
        )
    elif jwt_secret is None:
        log.error(
            "JWT_SECRET is not set: sign-in, token refresh and the other /auth and /api-keys routes will answer "
            "500 until it is. Set JWT_SECRET (or MNEMO_JWT_SECRET), or start with `mnemo serve`, which generates one."
        )
    if jwt_secret is not None and len(jwt_secret.encode("utf-8")) < RECOMMENDED_SECRET_BYTES:
        log.warning("JWT_SECRET is shorter than %d bytes: use a longer random secret", RECOMMENDED_SECRET_BYTES)
    if admin_key is not None and len(admin_key) < MIN_ADMIN_KEY_LENGTH:
        log.warning("ADMIN_API_KEY is shorter than %d characters: use a longer random key", MIN_ADMIN_KEY_LENGTH)
