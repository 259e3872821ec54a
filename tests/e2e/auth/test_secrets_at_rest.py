"""No secret in clear text: not in the SQLite files, not in the logs, not in /requests."""

from __future__ import annotations

import logging
from pathlib import Path

import jwt
import pytest
from fastapi.testclient import TestClient

from tests.e2e.auth.conftest import ADMIN, ADMIN_KEY, JWT_SECRET, MEMBER, add_member, add_memory, login, new_key, ok


def test_no_secret_is_stored_logged_or_listed_in_clear_text(
    api: TestClient, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secrets_seen: list[str] = [JWT_SECRET, ADMIN_KEY, ADMIN["password"], MEMBER["password"]]

    admin = ok(api.post("/auth/register", json=ADMIN))
    headers = {"Authorization": f"Bearer {admin['access_token']}"}
    session = login(api, ADMIN["email"], ADMIN["password"])
    member = add_member(api, type(session)(admin["access_token"], admin["refresh_token"]))
    key = new_key(api, session)["key"]
    add_memory(api, {"X-API-Key": key}, "A memory written with a key.")
    add_memory(api, {"X-API-Key": ADMIN_KEY}, "A memory written with the admin key.")
    renewed = ok(api.post("/auth/refresh", json={"refresh_token": session.refresh_token}))
    new_password = "the second passphrase"
    ok(
        api.post(
            "/auth/change-password",
            json={"current_password": ADMIN["password"], "new_password": new_password},
            headers=headers,
        )
    )
    api.post("/auth/login", json={"email": ADMIN["email"], "password": "a wrong guess at it"})
    secrets_seen += [new_password, "a wrong guess at it", key]
    for tokens in (admin, renewed, {"access_token": session.access_token, "refresh_token": session.refresh_token}):
        secrets_seen += [tokens["access_token"], tokens["refresh_token"]]
        # a refresh token's id is stored as a hash only
        secrets_seen.append(jwt.decode(tokens["refresh_token"], JWT_SECRET, algorithms=["HS256"])["jti"])
    secrets_seen += [member.access_token, member.refresh_token]

    listed = api.get("/requests", params={"limit": 200}, headers=headers).text
    container = api.app.state.services  # type: ignore[attr-defined]
    container.request_log.flush()
    stored = b"".join(p.read_bytes() for p in sorted(data_dir.iterdir()) if p.is_file())
    assert len(stored) > 10_000
    assert b"ada@example.com" in stored  # the search does see the files' contents

    for secret in secrets_seen:
        assert secret.encode() not in stored, f"{secret[:12]}… is in the SQLite files"
        assert secret not in caplog.text, f"{secret[:12]}… is in the logs"
        assert secret not in listed, f"{secret[:12]}… is in /requests"
    assert key[:12] in listed  # the shown prefix is what identifies a key
