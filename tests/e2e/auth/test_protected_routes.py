"""Every protected route in /openapi.json refuses a caller without valid credentials (401), and every
admin-only route refuses a member (403)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from fastapi.testclient import TestClient

from tests.e2e.auth.conftest import JWT_SECRET, add_member, new_key, ok, register_admin

OPEN = {
    ("get", "/auth/setup-status"),
    ("post", "/auth/register"),
    ("post", "/auth/login"),
    ("post", "/auth/refresh"),
    ("get", "/health"),  # the workers' state, for a load balancer: nothing of the data
}
ADMIN_ONLY = {
    ("post", "/configure"),
    ("delete", "/memories"),
    ("post", "/reset"),
    ("get", "/requests"),
    ("delete", "/entities/{entity_type}/{entity_id}"),
    ("get", "/users"),
    ("post", "/users"),
    ("delete", "/users/{user_id}"),
}
PATH_VALUES = {"entity_type": "user", "entity_id": "alice", "user_id": "someone", "key_id": "k", "memory_id": "m"}
QUERY = {("get", "/memories"): {"user_id": "alice"}}  # without an id, listing is an admin's (tested below)
PLATFORM_PREFIXES = ("/v1/", "/v2/", "/v3/", "/api/v1/")


def operations(api: TestClient) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    spec = ok(api.get("/openapi.json"))
    protected: list[tuple[str, str]] = []
    unprotected: set[tuple[str, str]] = set()
    for path, methods in spec["paths"].items():
        if path.startswith(PLATFORM_PREFIXES):  # the platform surface (Token keys): tests/e2e/platform
            continue
        for method, operation in methods.items():
            if operation.get("security"):
                protected.append((method, path))
            else:
                unprotected.add((method, path))
    return protected, unprotected


def call(api: TestClient, method: str, path: str, headers: dict[str, str]) -> Any:
    params = QUERY.get((method, path))
    return api.request(method.upper(), path.format(**PATH_VALUES), headers=headers, params=params)


def test_the_openapi_description_offers_both_schemes_and_only_the_sign_in_routes_are_open(api: TestClient) -> None:
    spec = ok(api.get("/openapi.json"))
    schemes = spec["components"]["securitySchemes"]
    assert schemes["BearerToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "An access token from POST /auth/login (or /auth/refresh).",
    }
    assert (schemes["ApiKey"]["type"], schemes["ApiKey"]["in"], schemes["ApiKey"]["name"]) == (
        "apiKey",
        "header",
        "X-API-Key",
    )
    assert spec["paths"]["/memories"]["post"]["security"] == [{"BearerToken": []}, {"ApiKey": []}]
    protected, unprotected = operations(api)
    assert unprotected == OPEN
    assert {path for _, path in protected} == {
        "/memories",
        "/memories/{memory_id}",
        "/memories/{memory_id}/history",
        "/search",
        "/reset",
        "/configure",
        "/configure/providers",
        "/generate-instructions",
        "/auth/me",
        "/auth/change-password",
        "/auth/onboarding-complete",
        "/api-keys",
        "/api-keys/{key_id}",
        "/users",
        "/users/{user_id}",
        "/requests",
        "/entities",
        "/entities/{entity_type}/{entity_id}",
        "/mcp",  # any of the self-hosted credentials, or a project key (tests/e2e/mcp)
    }
    assert len(protected) == 27
    assert set(protected) >= ADMIN_ONLY


def test_every_protected_route_refuses_a_caller_without_valid_credentials(api: TestClient) -> None:
    admin = register_admin(api)
    claims = jwt.decode(admin.access_token, JWT_SECRET, algorithms=["HS256"])
    expired = jwt.encode(
        {**claims, "exp": int((datetime.now(UTC) - timedelta(seconds=5)).timestamp())}, JWT_SECRET, algorithm="HS256"
    )
    wrong_key = "m0sk_" + secrets.token_urlsafe(32)
    attempts = {
        "no credentials": {},
        "a wrong key": {"X-API-Key": wrong_key},
        "a wrong admin key": {"X-API-Key": "not-the-admin-key-0123456789"},
        "an expired token": {"Authorization": f"Bearer {expired}"},
        "a refresh token as an access token": {"Authorization": f"Bearer {admin.refresh_token}"},
        "a token scheme": {"Authorization": f"Token {admin.access_token}"},
    }
    protected, _ = operations(api)
    refused: list[str] = []
    for method, path in protected:
        for what, headers in attempts.items():
            response = call(api, method, path, headers)
            if response.status_code != 401:
                refused.append(f"{method.upper()} {path} with {what}: {response.status_code} {response.text}")
            elif not headers:
                assert response.headers["www-authenticate"] == "Bearer", (method, path)
    assert refused == []
    assert ok(api.get("/memories", params={"user_id": "alice"}, headers=admin.headers)) == {"results": []}


def test_a_member_is_refused_exactly_the_admin_only_routes(api: TestClient) -> None:
    admin = register_admin(api)
    member = add_member(api, admin)
    member_key = {"X-API-Key": new_key(api, member)["key"]}
    protected, _ = operations(api)
    wrong: list[str] = []
    for method, path in protected:
        for what, headers in (("token", member.headers), ("key", member_key)):
            if what == "key" and path.startswith(("/auth/", "/api-keys")):
                continue  # Bearer-only routes: a key is not a sign-in (see test_api_key_routes_need_a_bearer_token)
            status = call(api, method, path, headers).status_code
            if ((method, path) in ADMIN_ONLY) != (status == 403) or status == 401:
                wrong.append(f"{method.upper()} {path} as a member's {what}: {status}")
    assert wrong == []
    # listing every memory without an id is an admin's
    everything = api.get("/memories", headers=member.headers)
    assert (everything.status_code, everything.json()) == (403, {"detail": "Admin role required to list all memories."})
    assert ok(api.get("/memories", headers=admin.headers)) == {"results": []}


def test_request_logs_take_a_bearer_token_or_the_admin_key_but_not_a_users_key(api: TestClient) -> None:
    admin = register_admin(api)
    key = new_key(api, admin)["key"]
    assert api.get("/requests", headers=admin.headers).status_code == 200
    refused = api.get("/requests", headers={"X-API-Key": key})
    assert (refused.status_code, refused.json()) == (
        403,
        {"detail": "Request logs need a Bearer token or the admin key."},
    )
