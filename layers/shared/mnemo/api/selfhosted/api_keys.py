"""Self-hosted per-user API keys (Bearer token required): list, create (value shown once), revoke."""

from __future__ import annotations

from fastapi import APIRouter

from mnemo.api.dependencies import ApiKeyServiceDep
from mnemo.api.responses import MessageOut, errors
from mnemo.api.routing import TypedRoute
from mnemo.api.security import CurrentUser
from mnemo.api.selfhosted.bodies import NewApiKey
from mnemo.api.selfhosted.responses import UserApiKey, UserApiKeyCreated

router = APIRouter(route_class=TypedRoute, prefix="/api-keys", tags=["api keys"], responses=errors(401))


@router.get("", summary="The caller's live keys, newest first")
def list_keys(user: CurrentUser, api_keys: ApiKeyServiceDep) -> list[UserApiKey]:
    return [UserApiKey.of(k) for k in api_keys.list(user)]


@router.post("", status_code=201, summary="Create a key; its full value is in this response only")
def create_key(body: NewApiKey, user: CurrentUser, api_keys: ApiKeyServiceDep) -> UserApiKeyCreated:
    key, value = api_keys.create(user, body.label)
    return UserApiKeyCreated.of(key, value)


@router.delete("/{key_id}", summary="Revoke one of the caller's keys", responses=errors(400, 404))
def revoke_key(key_id: str, user: CurrentUser, api_keys: ApiKeyServiceDep) -> MessageOut:
    api_keys.revoke(user, key_id)
    return MessageOut(message="API key revoked.")
