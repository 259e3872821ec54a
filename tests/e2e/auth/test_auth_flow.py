"""End to end over the ASGI app: the whole life of a self-hosted account, from the empty server to a changed
password (the issue's flow), then the rules of each step."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from fastapi.testclient import TestClient

from tests.e2e.auth.conftest import (
    ADMIN,
    JWT_SECRET,
    MEMBER,
    AppFactory,
    Session,
    add_member,
    add_memory,
    login,
    new_key,
    ok,
    register_admin,
)

KEY_FORMAT = re.compile(r"^m0sk_[A-Za-z0-9_-]{43}$")


def test_the_whole_account_flow_works_end_to_end(api: TestClient) -> None:
    # setup-status says the server needs its first admin, and is open
    assert ok(api.get("/auth/setup-status")) == {"needsSetup": True}

    # register the first admin: tokens at once; setup is then done
    registered = register_admin(api)
    assert ok(api.get("/auth/setup-status")) == {"needsSetup": False}

    # login gives an access and a refresh token
    session = login(api, ADMIN["email"], ADMIN["password"])
    assert session.access_token != registered.access_token

    # me
    me = ok(api.get("/auth/me", headers=session.headers))
    assert (me["name"], me["email"], me["role"]) == ("Ada", "ada@example.com", "admin")
    assert me["last_login_at"] is not None

    # create a key: the full value, once
    created = new_key(api, session, "my agent")
    key = created["key"]
    assert KEY_FORMAT.match(key)
    assert created["key_prefix"] == key[:12]
    assert created["label"] == "my agent"

    # use the key
    memory_id = add_memory(api, {"X-API-Key": key}, "I keep bees on the roof.")
    assert ok(api.get(f"/memories/{memory_id}", headers={"X-API-Key": key}))["memory"] == "I keep bees on the roof."

    # list keys: no value, the use recorded
    (listed,) = ok(api.get("/api-keys", headers=session.headers))
    assert listed["id"] == created["id"]
    assert "key" not in listed
    assert listed["last_used_at"] is not None

    # revoke; the key is refused from then on
    assert ok(api.delete(f"/api-keys/{created['id']}", headers=session.headers)) == {"message": "API key revoked."}
    refused = api.get(f"/memories/{memory_id}", headers={"X-API-Key": key})
    assert refused.status_code == 401
    assert refused.json() == {"detail": "Invalid API key."}
    assert ok(api.get("/api-keys", headers=session.headers)) == []

    # refresh: a new pair that works
    renewed = refresh(api, session.refresh_token)
    assert ok(api.get("/auth/me", headers=renewed.headers))["email"] == ADMIN["email"]

    # change the password; the old one is refused, the new one works
    changed = api.post(
        "/auth/change-password",
        json={"current_password": ADMIN["password"], "new_password": "a brand new passphrase"},
        headers=renewed.headers,
    )
    assert ok(changed) == {"message": "Password updated."}
    old = api.post("/auth/login", json={"email": ADMIN["email"], "password": ADMIN["password"]})
    assert old.status_code == 401
    assert old.json() == {"detail": "Invalid email or password."}
    login(api, ADMIN["email"], "a brand new passphrase")


def refresh(api: TestClient, refresh_token: str) -> Session:
    tokens = ok(api.post("/auth/refresh", json={"refresh_token": refresh_token}))
    return Session(tokens["access_token"], tokens["refresh_token"])


# ---- register and login ------------------------------------------------------------------------------------


def test_registration_is_for_the_first_admin_only(api: TestClient) -> None:
    short = api.post("/auth/register", json={**ADMIN, "password": "short"})
    assert (short.status_code, short.json()["detail"]) == (400, "Password must be at least 8 characters.")
    assert api.post("/auth/register", json={**ADMIN, "email": "not-an-email"}).status_code == 422
    register_admin(api)
    again = api.post("/auth/register", json={**ADMIN, "email": "eve@example.com"})
    assert again.status_code == 403
    assert again.json() == {"detail": "Registration is closed. An admin account already exists."}


def test_login_refuses_a_wrong_password_and_an_unknown_email_alike(api: TestClient) -> None:
    register_admin(api)
    wrong = api.post("/auth/login", json={"email": ADMIN["email"], "password": "not the password"})
    unknown = api.post("/auth/login", json={"email": "nobody@example.com", "password": ADMIN["password"]})
    assert (wrong.status_code, wrong.json()) == (401, {"detail": "Invalid email or password."})
    assert (unknown.status_code, unknown.json()) == (401, {"detail": "Invalid email or password."})
    # emails compare case-insensitively
    login(api, "  ADA@Example.com ", ADMIN["password"])


# ---- tokens ------------------------------------------------------------------------------------------------


def test_tokens_carry_their_type_and_the_documented_lifetimes(api: TestClient) -> None:
    session = register_admin(api)
    access = jwt.decode(session.access_token, JWT_SECRET, algorithms=["HS256"])
    refresh_claims = jwt.decode(session.refresh_token, JWT_SECRET, algorithms=["HS256"])
    assert access["type"] == "access"
    assert refresh_claims["type"] == "refresh"
    assert access["exp"] - access["iat"] == 30 * 60
    assert refresh_claims["exp"] - refresh_claims["iat"] == 30 * 24 * 3600
    assert access["role"] == "admin"


def test_a_refresh_token_is_single_use_and_a_replay_revokes_its_whole_session(api: TestClient) -> None:
    session = register_admin(api)
    first = refresh(api, session.refresh_token)

    replay = api.post("/auth/refresh", json={"refresh_token": session.refresh_token})
    assert (replay.status_code, replay.json()) == (401, {"detail": "Refresh token is no longer valid."})
    # the replay revoked the family: the token the legitimate refresh got is dead too
    after = api.post("/auth/refresh", json={"refresh_token": first.refresh_token})
    assert after.status_code == 401
    # another sign-in is a separate session and unaffected
    other = login(api, ADMIN["email"], ADMIN["password"])
    refresh(api, other.refresh_token)


def test_an_access_token_is_not_a_refresh_token_nor_the_reverse(api: TestClient) -> None:
    session = register_admin(api)
    as_refresh = api.post("/auth/refresh", json={"refresh_token": session.access_token})
    assert (as_refresh.status_code, as_refresh.json()) == (401, {"detail": "Invalid token type."})
    as_access = api.get("/auth/me", headers={"Authorization": f"Bearer {session.refresh_token}"})
    assert (as_access.status_code, as_access.json()) == (401, {"detail": "Invalid token type."})
    garbage = api.post("/auth/refresh", json={"refresh_token": "not.a.token"})
    assert (garbage.status_code, garbage.json()) == (401, {"detail": "Invalid or expired token."})


def test_an_expired_or_foreign_token_is_refused(api: TestClient) -> None:
    session = register_admin(api)
    claims = jwt.decode(session.access_token, JWT_SECRET, algorithms=["HS256"])
    past = datetime.now(UTC) - timedelta(minutes=1)
    expired = jwt.encode({**claims, "exp": int(past.timestamp())}, JWT_SECRET, algorithm="HS256")
    forged = jwt.encode(claims, "another-secret-of-at-least-32-bytes!!", algorithm="HS256")
    for token in (expired, forged):
        response = api.get("/auth/me", headers={"Authorization": f"Bearer {token}"})
        assert (response.status_code, response.json()) == (401, {"detail": "Invalid or expired token."})


def test_a_bearer_token_wins_over_an_x_api_key(api: TestClient) -> None:
    session = register_admin(api)
    headers = {**session.headers, "X-API-Key": "m0sk_" + "x" * 43}
    assert ok(api.get("/auth/me", headers=headers))["email"] == ADMIN["email"]
    assert ok(api.get("/configure", headers=headers))


# ---- me and passwords --------------------------------------------------------------------------------------


def test_me_can_change_name_and_email_but_not_to_a_taken_email(api: TestClient) -> None:
    admin = register_admin(api)
    add_member(api, admin)
    taken = api.patch("/auth/me", json={"email": MEMBER["email"].upper()}, headers=admin.headers)
    assert (taken.status_code, taken.json()) == (409, {"detail": "Email is already in use."})
    blank = ok(api.patch("/auth/me", json={"name": "   "}, headers=admin.headers))
    assert blank["name"] == "Ada"
    changed = ok(api.patch("/auth/me", json={"name": "Ada L.", "email": "ada@lovelace.org"}, headers=admin.headers))
    assert (changed["name"], changed["email"]) == ("Ada L.", "ada@lovelace.org")
    login(api, "ada@lovelace.org", ADMIN["password"])


def test_change_password_checks_the_current_one_and_the_new_length(api: TestClient) -> None:
    admin = register_admin(api)
    wrong = api.post(
        "/auth/change-password",
        json={"current_password": "wrong wrong", "new_password": "long enough"},
        headers=admin.headers,
    )
    assert (wrong.status_code, wrong.json()) == (401, {"detail": "Current password is incorrect."})
    short = api.post(
        "/auth/change-password",
        json={"current_password": ADMIN["password"], "new_password": "1234567"},
        headers=admin.headers,
    )
    assert (short.status_code, short.json()) == (400, {"detail": "Password must be at least 8 characters."})
    login(api, ADMIN["email"], ADMIN["password"])  # unchanged


def test_a_password_change_ends_the_other_sessions_but_not_the_callers(api: TestClient) -> None:
    admin = register_admin(api)
    elsewhere = login(api, ADMIN["email"], ADMIN["password"])
    ok(
        api.post(
            "/auth/change-password",
            json={"current_password": ADMIN["password"], "new_password": "a brand new passphrase"},
            headers=admin.headers,
        )
    )
    assert api.post("/auth/refresh", json={"refresh_token": elsewhere.refresh_token}).status_code == 401
    refresh(api, admin.refresh_token)


# ---- API keys ----------------------------------------------------------------------------------------------


def test_api_keys_belong_to_their_creator(api: TestClient) -> None:
    admin = register_admin(api)
    member = add_member(api, admin)
    first = new_key(api, admin, "one")
    second = new_key(api, admin, "two")
    mine = new_key(api, member, "member's")
    assert [k["label"] for k in ok(api.get("/api-keys", headers=admin.headers))] == ["two", "one"]
    assert [k["id"] for k in ok(api.get("/api-keys", headers=member.headers))] == [mine["id"]]

    # someone else's key is not found; a revoked key cannot be revoked again
    assert api.delete(f"/api-keys/{first['id']}", headers=member.headers).status_code == 404
    assert api.delete("/api-keys/no-such-key", headers=admin.headers).status_code == 404
    ok(api.delete(f"/api-keys/{first['id']}", headers=admin.headers))
    again = api.delete(f"/api-keys/{first['id']}", headers=admin.headers)
    assert (again.status_code, again.json()) == (400, {"detail": "API key is already revoked."})

    # a key acts as its creator: the member's key is not an admin's
    assert ok(api.get("/entities", headers={"X-API-Key": mine["key"]})) == []
    assert api.post("/reset", headers={"X-API-Key": mine["key"]}).status_code == 403
    assert ok(api.post("/reset", headers={"X-API-Key": second["key"]})) == {"message": "All memories reset"}


def test_api_key_routes_need_a_bearer_token(api: TestClient) -> None:
    admin = register_admin(api)
    key = new_key(api, admin)["key"]
    for headers in ({"X-API-Key": key}, {"X-API-Key": "admin-key-for-the-tests-0123456789"}, {}):
        response = api.get("/api-keys", headers=headers)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"


def test_the_admin_key_is_an_admin_without_a_user(api: TestClient) -> None:
    admin = register_admin(api)
    headers = {"X-API-Key": "admin-key-for-the-tests-0123456789"}
    add_memory(api, headers, "The admin key can write.")
    assert ok(api.post("/configure", json={"custom_instructions": "Cities only."}, headers=headers))
    assert ok(api.get("/users", headers=headers))[0]["email"] == ADMIN["email"]
    assert api.get("/requests", headers=headers).status_code == 200
    # a near miss of the admin key is refused
    near = api.get("/entities", headers={"X-API-Key": "admin-key-for-the-tests-012345678"})
    assert (near.status_code, near.json()) == (401, {"detail": "Invalid API key."})
    assert ok(api.get("/auth/me", headers=admin.headers))["role"] == "admin"


# ---- users -------------------------------------------------------------------------------------------------


def test_the_admin_provisions_and_removes_users(api: TestClient) -> None:
    admin = register_admin(api)
    created = ok(api.post("/users", json=MEMBER, headers=admin.headers), 201)
    assert (created["email"], created["role"]) == (MEMBER["email"], "member")
    duplicate = api.post("/users", json={**MEMBER, "name": "Other"}, headers=admin.headers)
    assert duplicate.status_code == 409
    short = api.post("/users", json={**MEMBER, "email": "c@example.com", "password": "short"}, headers=admin.headers)
    assert short.status_code == 400
    assert [u["email"] for u in ok(api.get("/users", headers=admin.headers))] == [ADMIN["email"], MEMBER["email"]]

    member = login(api, MEMBER["email"], MEMBER["password"])
    key = new_key(api, member)["key"]
    assert api.get("/users", headers=member.headers).status_code == 403

    ok(api.delete(f"/users/{created['id']}", headers=admin.headers))
    gone = api.get("/auth/me", headers=member.headers)
    assert (gone.status_code, gone.json()) == (401, {"detail": "User not found."})
    assert api.get("/entities", headers={"X-API-Key": key}).status_code == 401
    assert api.post("/auth/refresh", json={"refresh_token": member.refresh_token}).status_code == 401
    assert api.delete(f"/users/{created['id']}", headers=admin.headers).status_code == 404


def test_an_admin_cannot_remove_itself_nor_the_last_admin(api: TestClient) -> None:
    admin = register_admin(api)
    me = ok(api.get("/auth/me", headers=admin.headers))
    itself = api.delete(f"/users/{me['id']}", headers=admin.headers)
    assert itself.status_code == 400
    last = api.delete(f"/users/{me['id']}", headers={"X-API-Key": "admin-key-for-the-tests-0123456789"})
    assert (last.status_code, last.json()) == (409, {"detail": "The last admin cannot be deleted."})
    second = ok(api.post("/users", json={**MEMBER, "role": "admin"}, headers=admin.headers), 201)
    ok(api.delete(f"/users/{me['id']}", headers={"X-API-Key": "admin-key-for-the-tests-0123456789"}))
    assert second["role"] == "admin"


# ---- rate limits -------------------------------------------------------------------------------------------


def test_login_register_and_refresh_are_rate_limited_per_client(make_app: AppFactory) -> None:
    api = make_app(rate_limit_login=3, rate_limit_register=2, rate_limit_refresh=1)
    session = register_admin(api)
    for _ in range(3):
        assert api.post("/auth/login", json={"email": "x@example.com", "password": "wrong pass"}).status_code == 401
    limited = api.post("/auth/login", json=ADMIN)
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["retry-after"]) <= 20
    body: dict[str, Any] = limited.json()
    assert body["error"] == "Rate limit exceeded: 3 per 1 minute"
    assert api.post("/auth/register", json=ADMIN).status_code == 403
    assert api.post("/auth/register", json=ADMIN).status_code == 429

    refresh(api, session.refresh_token)
    assert api.post("/auth/refresh", json={"refresh_token": "x"}).status_code == 429
    # other routes are not limited
    assert ok(api.get("/auth/me", headers=session.headers))["email"] == ADMIN["email"]
