"""Self-hosted authentication routes: /auth/setup-status, register, login, refresh, me, change-password."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from mnemo.api.dependencies import Services
from mnemo.api.security import CurrentUser, SessionCaller, limit
from mnemo.api.selfhosted.account_schemas import (
    Credentials,
    PasswordChange,
    ProfileUpdate,
    RefreshRequest,
    Registration,
    token_view,
    user_view,
)

router = APIRouter(prefix="/auth", tags=["authentication"])


@router.get("/setup-status", summary="Whether the first admin still has to register (open)")
def setup_status(services: Services) -> dict[str, bool]:
    return {"needsSetup": services.accounts.needs_setup()}


@router.post(
    "/register", summary="Register the first admin (only while no user exists)", dependencies=[limit("register")]
)
def register(body: Registration, services: Services) -> dict[str, Any]:
    services.tokens.require_configured()
    user = services.accounts.register_first_admin(body.name, body.email, body.password)
    return token_view(services.tokens.issue(user))


@router.post(
    "/login", summary="Exchange email and password for an access and a refresh token", dependencies=[limit("login")]
)
def login(body: Credentials, services: Services) -> dict[str, Any]:
    services.tokens.require_configured()
    user = services.accounts.authenticate(body.email, body.password)
    return token_view(services.tokens.issue(user))


@router.post(
    "/refresh", summary="Exchange a refresh token (single use) for a new pair", dependencies=[limit("refresh")]
)
def refresh(body: RefreshRequest, services: Services) -> dict[str, Any]:
    return token_view(services.tokens.refresh(body.refresh_token))


@router.get("/me", summary="The signed-in user")
def me(user: CurrentUser) -> dict[str, Any]:
    return user_view(user)


@router.patch("/me", summary="Change the signed-in user's name or email")
def update_me(body: ProfileUpdate, user: CurrentUser, services: Services) -> dict[str, Any]:
    return user_view(services.accounts.update_profile(user, body.name, body.email))


@router.post("/change-password", summary="Change the signed-in user's password")
def change_password(
    body: PasswordChange, user: CurrentUser, caller: SessionCaller, services: Services
) -> dict[str, str]:
    services.accounts.change_password(user, body.current_password, body.new_password)
    services.tokens.end_other_sessions(user, keep_family=caller.family_id)
    return {"message": "Password updated."}
