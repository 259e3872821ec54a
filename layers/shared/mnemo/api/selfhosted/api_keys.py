"""Self-hosted per-user API keys (Bearer token required): list, create (value shown once), revoke."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from mnemo.api.dependencies import Services
from mnemo.api.security import CurrentUser
from mnemo.api.selfhosted.account_schemas import NewApiKey, api_key_view

router = APIRouter(prefix="/api-keys", tags=["api keys"])


@router.get("", summary="The caller's live keys, newest first")
def list_keys(user: CurrentUser, services: Services) -> list[dict[str, Any]]:
    return [api_key_view(k) for k in services.api_keys.list(user)]


@router.post("", status_code=201, summary="Create a key; its full value is in this response only")
def create_key(body: NewApiKey, user: CurrentUser, services: Services) -> dict[str, Any]:
    key, value = services.api_keys.create(user, body.label)
    view = api_key_view(key)
    view.pop("last_used_at")
    return {"id": view.pop("id"), "key": value, **view}


@router.delete("/{key_id}", summary="Revoke one of the caller's keys")
def revoke_key(key_id: str, user: CurrentUser, services: Services) -> dict[str, str]:
    services.api_keys.revoke(user, key_id)
    return {"message": "API key revoked."}
