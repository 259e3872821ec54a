"""Self-hosted authentication routes: /auth/setup-status, register, login, refresh, me, change-password,
onboarding-complete."""

from __future__ import annotations

from fastapi import APIRouter

from mnemo.api.dependencies import AccountServiceDep, SessionServiceDep
from mnemo.api.responses import MessageOut, errors
from mnemo.api.routing import TypedRoute
from mnemo.api.security import CurrentUser, SessionCaller, limit
from mnemo.api.selfhosted.bodies import (
    Credentials,
    PasswordChange,
    ProfileUpdate,
    RefreshRequest,
    Registration,
    UseCase,
)
from mnemo.api.selfhosted.responses import SetupStatus, TokenOut, UserAccount

router = APIRouter(route_class=TypedRoute, prefix="/auth", tags=["authentication"])


@router.get("/setup-status", summary="Whether the first admin still has to register (open)")
def setup_status(accounts: AccountServiceDep) -> SetupStatus:
    return SetupStatus(needsSetup=accounts.needs_setup())


@router.post(
    "/register",
    summary="Register the first admin (only while no user exists)",
    dependencies=[limit("register")],
    responses=errors(400, 403, 429),
)
def register(body: Registration, sessions: SessionServiceDep) -> TokenOut:
    return TokenOut.of(sessions.register_first_admin(body.name, body.email, body.password))


@router.post(
    "/login",
    summary="Exchange email and password for an access and a refresh token",
    dependencies=[limit("login")],
    responses=errors(401, 429),
)
def login(body: Credentials, sessions: SessionServiceDep) -> TokenOut:
    return TokenOut.of(sessions.login(body.email, body.password))


@router.post(
    "/refresh",
    summary="Exchange a refresh token (single use) for a new pair",
    dependencies=[limit("refresh")],
    responses=errors(401, 429),
)
def refresh(body: RefreshRequest, sessions: SessionServiceDep) -> TokenOut:
    return TokenOut.of(sessions.refresh(body.refresh_token))


@router.get("/me", summary="The signed-in user", responses=errors(401))
def me(user: CurrentUser) -> UserAccount:
    return UserAccount.of(user)


@router.patch("/me", summary="Change the signed-in user's name or email", responses=errors(401, 409))
def update_me(body: ProfileUpdate, user: CurrentUser, accounts: AccountServiceDep) -> UserAccount:
    return UserAccount.of(accounts.update_profile(user, body.name, body.email))


@router.post("/change-password", summary="Change the signed-in user's password", responses=errors(400, 401))
def change_password(
    body: PasswordChange, user: CurrentUser, caller: SessionCaller, sessions: SessionServiceDep
) -> MessageOut:
    sessions.change_password(user, body.current_password, body.new_password, keep_family=caller.family_id)
    return MessageOut(message="Password updated.")


@router.post(
    "/onboarding-complete",
    summary="The signed-in user finished the dashboard's onboarding (the use case is not kept: the reference only "
    "sends it to its telemetry, which mnemo has none of)",
    responses=errors(401),
)
def onboarding_complete(body: UseCase, user: CurrentUser) -> MessageOut:
    return MessageOut(message="Onboarding completed.")
