"""Self-hosted user management (admin only): later accounts are provisioned by an admin."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from mnemo.api.dependencies import AccountServiceDep
from mnemo.api.responses import MessageOut, errors
from mnemo.api.routing import TypedRoute
from mnemo.api.security import Admin, require_admin
from mnemo.api.selfhosted.bodies import NewUser
from mnemo.api.selfhosted.responses import UserAccount

router = APIRouter(
    route_class=TypedRoute,
    prefix="/users",
    tags=["users"],
    dependencies=[Depends(require_admin)],
    responses=errors(401, 403),
)


@router.get("", summary="Every user, oldest first")
def list_users(accounts: AccountServiceDep) -> list[UserAccount]:
    return [UserAccount.of(u) for u in accounts.list_users()]


@router.post("", status_code=201, summary="Create a user (a member unless role is admin)", responses=errors(400, 409))
def create_user(body: NewUser, accounts: AccountServiceDep) -> UserAccount:
    return UserAccount.of(accounts.create_user(body.name, body.email, body.password, body.role))


@router.delete("/{user_id}", summary="Delete a user, with its API keys and sessions", responses=errors(400, 404, 409))
def delete_user(user_id: str, caller: Admin, accounts: AccountServiceDep) -> MessageOut:
    accounts.delete_user(user_id, caller.user)
    return MessageOut(message="User deleted.")
