"""The real `mnemo serve` with authentication on: the secret it makes for itself, and the whole account flow
over real HTTP."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.auth.conftest import ADMIN
from tests.e2e.test_concurrency_and_restart import MNEMO, serving
from tests.support.waits import HTTP_TIMEOUT, seconds

CHEAP = {"MNEMO_ARGON2_TIME_COST": "1", "MNEMO_ARGON2_MEMORY_KIB": "64", "MNEMO_ARGON2_PARALLELISM": "1"}
NEW_PASSWORD = "a brand new passphrase"


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (response.request.method, response.request.url, response.text)
    return response.json()


def test_mnemo_serve_makes_its_jwt_secret_and_serves_the_account_flow(tmp_path: Path) -> None:
    data_dir = tmp_path / "served"
    log = tmp_path / "serve.log"
    credentials = {"email": ADMIN["email"], "password": ADMIN["password"]}
    with (
        serving(data_dir, log, AUTH_DISABLED="false", MNEMO_LOG_LEVEL="info", **CHEAP) as base,
        httpx.Client(base_url=base, timeout=HTTP_TIMEOUT) as http,
    ):
        secret_file = data_dir / "jwt_secret"
        assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
        secret = secret_file.read_text().strip()
        assert len(secret) >= 43
        assert http.get("/memories", params={"user_id": "alice"}).status_code == 401

        assert ok(http.get("/auth/setup-status")) == {"needsSetup": True}
        ok(http.post("/auth/register", json=ADMIN))
        tokens = ok(http.post("/auth/login", json=credentials))
        bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
        assert ok(http.get("/auth/me", headers=bearer))["email"] == ADMIN["email"]

        created = ok(http.post("/api-keys", json={"label": "smoke"}, headers=bearer), 201)
        key = {"X-API-Key": created["key"]}
        message = {"messages": [{"role": "user", "content": "I keep bees."}], "user_id": "alice", "infer": False}
        (memory,) = ok(http.post("/memories", json=message, headers=key))["results"]
        assert [k["id"] for k in ok(http.get("/api-keys", headers=bearer))] == [created["id"]]
        ok(http.delete(f"/api-keys/{created['id']}", headers=bearer))
        assert http.get(f"/memories/{memory['id']}", headers=key).status_code == 401

        renewed = ok(http.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]}))
        assert http.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]}).status_code == 401
        bearer = {"Authorization": f"Bearer {renewed['access_token']}"}
        change = {"current_password": ADMIN["password"], "new_password": NEW_PASSWORD}
        ok(http.post("/auth/change-password", json=change, headers=bearer))
        assert http.post("/auth/login", json=credentials).status_code == 401
        ok(http.post("/auth/login", json={**credentials, "password": NEW_PASSWORD}))
        logged = ok(http.get("/requests", headers=bearer))
        assert ("POST", "/auth/change-password", 200) in [(e["method"], e["path"], e["status_code"]) for e in logged]

    served_log = log.read_text()
    assert "generated one and kept it in" in served_log
    assert '"POST /auth/login HTTP/1.1" 401' in served_log  # the access log is on at info level
    for secret_value in (secret, ADMIN["password"], NEW_PASSWORD, created["key"], tokens["access_token"]):
        assert secret_value not in served_log


def test_mnemo_serve_refuses_other_hosts_while_auth_is_disabled(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(MNEMO), "serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=seconds(60),
        check=False,
        env={"PATH": "/usr/bin:/bin", "AUTH_DISABLED": "true"},
    )
    assert result.returncode == 2
    assert "authentication is disabled" in result.stderr
