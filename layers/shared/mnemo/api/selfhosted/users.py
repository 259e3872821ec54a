"""Self-hosted user management (admin only): later accounts are provisioned by an admin."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from mnemo.api.dependencies import Services
from mnemo.api.security import Admin, require_admin
from mnemo.api.selfhosted.account_schemas import NewUser, user_view

router = APIRouter(prefix="/users", tags=["users"], dependencies=[Depends(require_admin)])


@router.get("", summary="Every user, oldest first")
def list_users(services: Services) -> list[dict[str, Any]]:
    return [user_view(u) for u in services.accounts.list_users()]


@router.post("", status_code=201, summary="Create a user (a member unless role is admin)")
def create_user(body: NewUser, services: Services) -> dict[str, Any]:
    return user_view(services.accounts.create_user(body.name, body.email, body.password, body.role))


@router.delete("/{user_id}", summary="Delete a user, with its API keys and sessions")
def delete_user(user_id: str, caller: Admin, services: Services) -> dict[str, str]:
    services.accounts.delete_user(user_id, caller.user)
    return {"message": "User deleted."}
