"""The console on the real stack, as a new user meets it: `mnemo platform bootstrap --password-stdin`, then the
served app `mnemo serve` runs (the API and the console at /console) signs the owner in through the platform's own
sign-in service (not the browser suite's fake), shows their organization, and refuses a wrong password and a form
without its CSRF token."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from mnemo.entrypoints import cli
from mnemo.entrypoints.http_workers import serving_app
from mnemo.settings import Settings

PASSWORD = "a long enough console secret"
EMAIL = "owner@example.com"


@pytest.fixture(autouse=True)
def cheap_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_ARGON2_TIME_COST", "1")
    monkeypatch.setenv("MNEMO_ARGON2_MEMORY_KIB", "64")
    monkeypatch.setenv("MNEMO_ARGON2_PARALLELISM", "1")


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def test_an_owner_bootstrapped_with_a_password_signs_in_to_the_console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    boot = ["platform", "bootstrap", "--email", EMAIL, "--org", "Acme <b>Labs</b>", "--data-dir", str(tmp_path)]
    assert cli.main([*boot, "--password-stdin"]) == 0
    settings = Settings(
        data_dir=tmp_path, backend="local", auth_disabled=False, jwt_secret=SecretStr("console-test-" + "x" * 32)
    )
    app, container = serving_app(settings)
    try:
        with TestClient(app, follow_redirects=False) as client:
            form = client.get("/console/sign-in")
            assert form.status_code == 200 and "script-src 'self'" in form.headers["content-security-policy"]
            token = csrf_of(form.text)

            wrong = client.post("/console/sign-in", data={"email": EMAIL, "password": "not it", "csrf_token": token})
            assert wrong.status_code == 401 and "mnemo_console=" not in wrong.headers.get("set-cookie", "")
            forged = client.post("/console/sign-in", data={"email": EMAIL, "password": PASSWORD})
            assert forged.status_code == 403
            token = csrf_of(client.get("/console/sign-in").text)  # each form its own token

            signed = client.post("/console/sign-in", data={"email": EMAIL, "password": PASSWORD, "csrf_token": token})
            assert signed.status_code in (302, 303), signed.text
            assert "httponly" in signed.headers["set-cookie"].lower()
            home = client.get("/console/")
            assert home.status_code == 200
            assert "Acme &lt;b&gt;Labs&lt;/b&gt;" in home.text and "<b>Labs</b>" not in home.text

            client.post("/console/sign-out", data={"csrf_token": csrf_of(home.text)})
            assert client.get("/console/").status_code in (302, 303)
    finally:
        container.close()
