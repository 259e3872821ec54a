"""The Webhooks page without a browser, on a backend without webhooks (AWS without its events topic): the page
answers 503 with the backend's reason, as the API's routes do, and still asks who is signed in first."""

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
from mnemo.console.app import create_console
from mnemo.console.visits import ConsoleServices
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.unavailable import Unavailable
from tests.support.console_auth_fake import FakeConsoleAuth

PASSWORD = "a good long password"
REASON = "Webhooks need the events topic on this deployment."


@pytest.fixture
def tenancy(tmp_path: Path) -> Iterator[TenancyService]:
    database = Database(tmp_path / "main.sqlite3")
    yield TenancyService(SqliteTenancyStore(database), lambda _namespace: None)
    database.close()


def test_given_a_backend_without_webhooks_then_the_page_says_why_with_503(tenancy: TenancyService) -> None:
    # Given a signed-in owner on a platform whose webhooks are unavailable
    auth = FakeConsoleAuth(tenancy)
    owner = tenancy.bootstrap("owner@example.com", "Acme")
    auth.set_password(owner.user, PASSWORD)
    platform = cast(Any, SimpleNamespace(tenancy=tenancy, webhooks=Unavailable(REASON)))
    parent = Starlette()
    parent.mount("/console", create_console(ConsoleServices(platform=lambda: platform, auth=lambda: auth)))
    client = TestClient(parent, follow_redirects=False)
    base = f"/console/orgs/{owner.org.id}/projects/{owner.project.id}/webhooks"
    assert client.get(base).status_code == 303  # not signed in yet: the sign-in page first
    form = client.get("/console/sign-in")
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    assert token
    signed = client.post(
        "/console/sign-in", data={"email": owner.user.email, "password": PASSWORD, "csrf_token": token[1]}
    )
    assert signed.status_code == 303
    # When they open the Webhooks page, or one webhook's
    for path in (base, base + "/some-id"):
        answer = client.get(path)
        # Then it answers 503 with the reason
        assert answer.status_code == 503 and REASON in answer.text
