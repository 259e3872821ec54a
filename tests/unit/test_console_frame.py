"""The console's frame without a browser: its security headers, the session cookie's attributes (Secure behind an
HTTPS proxy), the CSRF check, the redirect to sign-in, the 503 of a deployment without a sign-in, the flash message,
the safe return path, and the typed errors turned into pages with the API's statuses."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.tenancy_store import SqliteTenancyStore
from mnemo.console.app import create_console, mount_console
from mnemo.console.security import CONTENT_SECURITY_POLICY, tokens_match
from mnemo.console.visits import ConsoleServices, safe_next
from mnemo.domain.tenancy import Role
from mnemo.services.platform.tenancy.service import TenancyService
from tests.support.console_auth_fake import FakeConsoleAuth

PASSWORD = "a good long password"


@pytest.fixture
def tenancy(tmp_path: Path) -> Iterator[TenancyService]:
    database = Database(tmp_path / "main.sqlite3")
    yield TenancyService(SqliteTenancyStore(database), lambda _namespace: None)
    database.close()


def _client(tenancy: TenancyService, auth: FakeConsoleAuth | None, base: str = "http://testserver") -> TestClient:
    platform = cast(Any, SimpleNamespace(tenancy=tenancy))
    parent = Starlette()
    parent.mount("/console", create_console(ConsoleServices(platform=lambda: platform, auth=lambda: auth)))
    return TestClient(parent, base_url=base, follow_redirects=False)


def _signed_in(client: TestClient, email: str) -> str:
    page = client.get("/console/sign-in")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token
    answer = client.post(
        "/console/sign-in", data={"email": email, "password": PASSWORD, "csrf_token": token[1], "next": "/"}
    )
    assert answer.status_code == 303, answer.text
    home = client.get("/console/")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', home.text)
    assert csrf
    return csrf[1]


def _owner(tenancy: TenancyService, auth: FakeConsoleAuth, email: str = "owner@example.com") -> Any:
    made = tenancy.bootstrap(email, "Acme")
    auth.set_password(made.user, PASSWORD)
    return made


def test_given_no_sign_in_configured_then_every_page_answers_503(tenancy: TenancyService) -> None:
    client = _client(tenancy, None)
    for path in ("/console/", "/console/sign-in", "/console/accept?token=x"):
        answer = client.get(path)
        assert answer.status_code == 503
        assert "sign-in is not configured" in answer.text


def test_given_any_page_then_it_carries_the_strict_headers(tenancy: TenancyService) -> None:
    client = _client(tenancy, FakeConsoleAuth(tenancy))
    answer = client.get("/console/sign-in")
    assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["cache-control"] == "no-store"
    assert "<script>" not in answer.text and 'src="/console/static/console.js"' in answer.text
    static = client.get("/console/static/console.css")
    assert static.status_code == 200 and "cache-control" not in static.headers


def test_given_no_session_when_a_page_is_asked_then_sign_in_is_asked_first(tenancy: TenancyService) -> None:
    answer = _client(tenancy, FakeConsoleAuth(tenancy)).get("/console/orgs/o/projects/p/keys")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/console/sign-in?next=/orgs/o/projects/p/keys"


def test_given_a_signed_in_person_then_the_cookie_is_protected(tenancy: TenancyService) -> None:
    auth = FakeConsoleAuth(tenancy)
    _owner(tenancy, auth)
    client = _client(tenancy, auth)
    page = client.get("/console/sign-in")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token
    answer = client.post(
        "/console/sign-in", data={"email": "owner@example.com", "password": PASSWORD, "csrf_token": token[1]}
    )
    cookie = next(value for value in answer.headers.get_list("set-cookie") if value.startswith("mnemo_console="))
    attributes = {part.strip().lower() for part in cookie.split(";")}
    assert {"httponly", "samesite=lax", "path=/console"} <= attributes
    assert "secure" not in attributes


def test_given_https_behind_a_proxy_then_the_cookie_is_secure(tenancy: TenancyService) -> None:
    auth = FakeConsoleAuth(tenancy)
    _owner(tenancy, auth)
    client = _client(tenancy, auth)
    page = client.get("/console/sign-in", headers={"X-Forwarded-Proto": "https"})
    assert "secure" in page.headers["set-cookie"].lower()
    assert "samesite=lax" in page.headers["set-cookie"].lower()


def test_given_a_post_without_its_token_then_it_is_refused(tenancy: TenancyService) -> None:
    auth = FakeConsoleAuth(tenancy)
    _owner(tenancy, auth)
    client = _client(tenancy, auth)
    csrf = _signed_in(client, "owner@example.com")
    assert client.post("/console/orgs", data={"name": "Forged"}).status_code == 403
    assert client.post("/console/orgs", data={"name": "Forged", "csrf_token": csrf + "x"}).status_code == 403
    assert client.post("/console/orgs", data={"name": "Real"}, headers={"X-CSRF-Token": csrf}).status_code == 303
    assert client.post("/console/orgs", data={"name": "Real 2", "csrf_token": csrf}).status_code == 303


def test_given_a_refused_form_then_the_reason_shows_once_on_the_page_it_came_from(tenancy: TenancyService) -> None:
    auth = FakeConsoleAuth(tenancy)
    _owner(tenancy, auth)
    client = _client(tenancy, auth)
    csrf = _signed_in(client, "owner@example.com")
    answer = client.post(
        "/console/orgs", data={"name": " ", "csrf_token": csrf}, headers={"Referer": "http://testserver/console/"}
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/console/"
    shown = client.get("/console/")
    assert 'role="alert"' in shown.text
    assert 'role="alert"' not in client.get("/console/").text


def test_given_a_reader_then_a_write_is_a_403_page(tenancy: TenancyService) -> None:
    auth = FakeConsoleAuth(tenancy)
    owner = _owner(tenancy, auth)
    tenancy.add_project_member(owner.org.id, owner.project.id, owner.user, "reader@example.com", "READER")
    reader = next(
        m.user for m in tenancy.project_members(owner.org.id, owner.project.id, owner.user) if m.role is Role.READER
    )
    auth.set_password(reader, PASSWORD)
    client = _client(tenancy, auth)
    csrf = _signed_in(client, "reader@example.com")
    base = f"/console/orgs/{owner.org.id}/projects/{owner.project.id}"
    assert client.post(base + "/rename", data={"name": "x", "csrf_token": csrf}).status_code == 403
    assert client.get(base + "/keys").status_code == 200  # the page, saying only an OWNER sees keys
    assert client.get(f"/console/orgs/{owner.org.id}/projects/nope/").status_code == 404
    assert client.get(base + "/no-such-section").status_code == 404


def _try_sign_in(client: TestClient, email: str, password: str) -> Any:
    page = client.get("/console/sign-in")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token
    return client.post("/console/sign-in", data={"email": email, "password": password, "csrf_token": token[1]})


def test_given_a_throttled_sign_in_then_it_answers_429_with_the_page_and_when_to_retry(
    tenancy: TenancyService,
) -> None:
    # Given an account whose sign-in failed as often as the sign-in allows
    auth = FakeConsoleAuth(tenancy)
    _owner(tenancy, auth)
    client = _client(tenancy, auth)
    for _ in range(5):
        wrong = _try_sign_in(client, "owner@example.com", "not the password")
        assert wrong.status_code == 401 and "Retry-After" not in wrong.headers
    # When it is tried again, even with the right password
    refused = _try_sign_in(client, "owner@example.com", PASSWORD)
    # Then the sign-in page answers 429, with the message and the seconds to wait
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "60"
    assert "Too many failed sign-ins" in refused.text and 'name="password"' in refused.text
    assert "mnemo_console=" not in refused.headers.get("set-cookie", "")


@pytest.mark.parametrize(
    ("asked", "kept"),
    [
        ("/orgs/o/projects/p/keys", "/orgs/o/projects/p/keys"),
        ("/?a=b", "/?a=b"),
        ("//evil.example/", "/"),
        ("https://evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("evil", "/"),
    ],
)
def test_the_return_path_after_sign_in_stays_in_the_console(asked: str, kept: str) -> None:
    assert safe_next(asked) == kept


def test_tokens_compare_only_when_both_are_present() -> None:
    assert tokens_match("abc", "abc")
    assert not tokens_match("abc", "abd")
    assert not tokens_match(None, "abc")
    assert not tokens_match("", "")
    assert not tokens_match("abc", None)


def test_given_a_served_app_then_the_console_is_mounted_and_reads_the_platforms_sign_in(
    tenancy: TenancyService,
) -> None:
    # Given a served app whose platform has no sign-in yet
    platform = SimpleNamespace(tenancy=tenancy)
    served = cast(Any, SimpleNamespace(platform=platform))
    app = Starlette()
    mount_console(app, served)
    client = TestClient(app, follow_redirects=False)
    # Then the console says so
    assert client.get("/console/sign-in").status_code == 503
    # When the platform gets one, the console uses it (read on each request, not at mounting)
    platform.console_auth = FakeConsoleAuth(tenancy)
    assert client.get("/console/sign-in").status_code == 200
