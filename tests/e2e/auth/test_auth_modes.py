"""The modes around the credentials: auth disabled, the JWT secret missing, and the warnings at start-up."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

from tests.e2e.auth.conftest import ADMIN, ADMIN_KEY, AppFactory, add_memory, login, ok, register_admin


def test_with_auth_disabled_everything_is_open_and_acts_as_admin(
    make_app: AppFactory, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="mnemo"):
        api = make_app(auth_disabled=True, jwt_secret=None)
    assert "AUTHENTICATION IS DISABLED" in caplog.text

    add_memory(api, {}, "Open for development.")
    assert ok(api.get("/memories"))["results"][0]["memory"] == "Open for development."
    assert ok(api.post("/configure", json={"custom_instructions": "x"}))
    assert ok(api.get("/requests"))
    # the session routes act as the oldest user, and there is none yet
    assert api.get("/auth/me").status_code == 401
    # bad credentials are still refused: they are checked before the disabled mode
    assert api.get("/entities", headers={"X-API-Key": "m0sk_nope"}).status_code == 401


def test_with_auth_disabled_the_session_routes_act_as_the_first_user(make_app: AppFactory) -> None:
    api = make_app(auth_disabled=True)
    register_admin(api)
    assert ok(api.get("/auth/me"))["email"] == ADMIN["email"]
    created = ok(api.post("/api-keys", json={"label": "dev"}), 201)
    assert ok(api.get("/api-keys"))[0]["id"] == created["id"]


def test_without_a_jwt_secret_the_auth_routes_answer_500_and_say_why(
    make_app: AppFactory, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="mnemo"):
        api = make_app(jwt_secret=None)
    assert "JWT_SECRET is not set" in caplog.text

    assert ok(api.get("/auth/setup-status")) == {"needsSetup": True}
    for method, path, body in (
        ("POST", "/auth/register", ADMIN),
        ("POST", "/auth/login", {"email": ADMIN["email"], "password": ADMIN["password"]}),
        ("POST", "/auth/refresh", {"refresh_token": "x"}),
        ("GET", "/auth/me", None),
        ("GET", "/api-keys", None),
    ):
        response = api.request(method, path, json=body)
        assert (response.status_code, response.json()) == (500, {"detail": "JWT_SECRET is not configured."}), path
    # nothing was registered by the refused call
    assert ok(api.get("/auth/setup-status")) == {"needsSetup": True}
    # the admin key needs no JWT secret; no credentials is still a 401
    assert add_memory(api, {"X-API-Key": ADMIN_KEY}, "Still reachable with the admin key.")
    assert api.get("/entities").status_code == 401


def test_a_short_admin_key_is_reported_at_start_up(make_app: AppFactory, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mnemo"):
        api = make_app(admin_api_key="short-key")
    assert "ADMIN_API_KEY is shorter than 16 characters" in caplog.text
    assert "short-key" not in caplog.text
    assert api.get("/entities", headers={"X-API-Key": "short-key"}).status_code == 200


def test_auth_is_on_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemo.settings import Settings

    for name in ("AUTH_DISABLED", "MNEMO_AUTH_DISABLED"):
        monkeypatch.delenv(name, raising=False)
    assert Settings().auth_disabled is False
    monkeypatch.setenv("AUTH_DISABLED", "true")
    monkeypatch.setenv("JWT_SECRET", "from-the-mem0-name")
    monkeypatch.setenv("MNEMO_ADMIN_API_KEY", "from-the-mnemo-name")
    settings = Settings()
    assert settings.auth_disabled is True
    assert settings.secret("jwt_secret") == "from-the-mem0-name"
    assert settings.secret("admin_api_key") == "from-the-mnemo-name"
    assert "from-the" not in repr(settings)


def test_a_login_after_a_restart_keeps_working(make_app: AppFactory) -> None:
    first = make_app()
    register_admin(first)
    again: TestClient = make_app()
    assert ok(again.get("/auth/setup-status")) == {"needsSetup": False}
    login(again, ADMIN["email"], ADMIN["password"])
